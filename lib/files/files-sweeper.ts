import type { Logger } from '@aws-lambda-powertools/logger';
import type { Config } from '../config.js';
import type { FileStore } from './file-store.js';
import { sweepTemporaryFiles } from './temporary-files.js';

/**
 * The scheduled sweeper: deletes temporary files older than their lifetime
 * (1 hour by default). The bucket's 1-day lifecycle rule is only the
 * backstop, since S3 counts lifecycle ages in whole days.
 */
export function filesSweeper(deps: { files: Pick<FileStore, 'deleteOlderThan'>; logger: Logger; config: Pick<Config, 'fileLifetimeSeconds'> }) {
  return async (): Promise<{ deleted: number }> => {
    const deleted = await sweepTemporaryFiles(deps.files, deps.config.fileLifetimeSeconds);
    deps.logger.info('temporary files swept', { deleted });
    return { deleted };
  };
}
