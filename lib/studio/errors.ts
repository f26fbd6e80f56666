/**
 * The studio's build is not where the function looks for it: `npm ci` (its
 * `prepare`) or `npm run build:studio` was not run before packaging, or the
 * function's `package.patterns` lost `studio/dist/**`. A deployment fault,
 * answered as a plain 500 and logged with this message.
 */
export class StudioBuildMissingError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StudioBuildMissingError';
  }
}
