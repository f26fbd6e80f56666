/**
 * Why a font file cannot be used: its message is for the caller (what the file
 * is or lacks), and the endpoint turns it into a 400 naming the file's field.
 */
export class FontFileError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'FontFileError';
  }
}
