/**
 * A caller's password as the file's security handler hashes it. Revisions 5
 * and 6 (AES-256) take the password prepared by SASLprep (RFC 4013) and then
 * as UTF-8 (ISO 32000-2 §7.6.4.3.3); pdf-lib encodes revision 6 as UTF-8
 * without SASLprep, and revision 5 one byte per character, so a password
 * such as "pässwört" (PDF.js's issue21579.pdf) or one with a soft hyphen
 * (saslprep-r6.pdf) did not open a file qpdf and Acrobat open. Revisions 2 to
 * 4 take the password's bytes as they are (PDFDocEncoding), as pdf-lib does.
 */

// RFC 3454 B.1: commonly mapped to nothing.
const MAPPED_TO_NOTHING = /[\u00ad\u034f\u1806\u180b-\u180d\u200b-\u200d\u2060\ufe00-\ufe0f\ufeff]/g;
// RFC 3454 C.1.2: non-ASCII spaces, mapped to SPACE.
const NON_ASCII_SPACES = /[\u00a0\u1680\u2000-\u200b\u202f\u205f\u3000]/g;

/** RFC 4013's preparation of a password: mapped (nothing, spaces) and NFKC-normalised. */
export function saslPrep(password: string): string {
  return password.replace(MAPPED_TO_NOTHING, '').replace(NON_ASCII_SPACES, ' ').normalize('NFKC');
}

/** What to hand pdf-lib's decryption for a file of security handler `revision`, so that it hashes the bytes the standard says. */
export function passwordForRevision(password: string, revision: number): string {
  if (revision === 6) return saslPrep(password);
  // Revision 5: pdf-lib takes each character as one byte, so the UTF-8 bytes are given one character each, cut at 127.
  if (revision === 5) return Buffer.from(saslPrep(password), 'utf8').subarray(0, 127).toString('latin1');
  return password;
}
