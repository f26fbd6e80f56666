import { appDeps } from '../lib/app.js';
import { asyncScreenshotEndpoint } from '../lib/api/async-render.js';

export const handler = asyncScreenshotEndpoint(appDeps());
