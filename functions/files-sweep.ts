import { appDeps } from '../lib/bootstrap/app-deps.js';
import { filesSweeper } from '../lib/files/files-sweeper.js';

export const handler = filesSweeper(appDeps());
