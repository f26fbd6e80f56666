import { appDeps } from '../lib/app.js';
import { filesSweeper } from '../lib/files/files-sweeper.js';

export const handler = filesSweeper(appDeps());
