import type { HttpEvent, HttpResult } from '../lib/http/types.js';
import { studioResponse } from '../lib/studio/studio-assets.js';

/**
 * The template studio, no token (the page asks for one and calls the API on
 * this same origin): `GET /` and its files `GET /studio/{file}`.
 */
export const handler = async (event: HttpEvent): Promise<HttpResult> => studioResponse(event);
