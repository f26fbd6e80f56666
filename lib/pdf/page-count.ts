/**
 * The page count of a PDF read without parsing it: the largest /Count of its
 * page-tree nodes (`/Type /Pages`), which is the root's. It reads files
 * whose page tree is in plain object syntax, as Chromium prints them (Skia
 * writes no object streams) and as an encryption step leaves them (PDF
 * encrypts strings and streams, not dictionaries); a page tree inside object
 * streams is not seen, and the answer is then undefined. Linear in the file's
 * size, with no copy of it: a 5,000-page print of 60 MB is read in tens of
 * milliseconds, where parsing it would hold it twice.
 */

const PAGES = Buffer.from('/Pages');
/** How far around a node's /Type its dictionary may reach: a flat tree's root lists every page in /Kids (7 bytes each). */
const NODE_WINDOW = 1 << 20;

/** The page count as the module comment describes, or undefined where the page tree cannot be read so. */
export function plainPageCount(pdf: Uint8Array): number | undefined {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  let largest: number | undefined;
  for (let at = bytes.indexOf(PAGES); at !== -1; at = bytes.indexOf(PAGES, at + PAGES.length)) {
    // `/Pages` as the value of /Type (not the catalog's `/Pages 3 0 R`, nor a longer name such as /PagesX).
    const after = bytes[at + PAGES.length];
    if (after !== undefined && /[A-Za-z0-9_.#-]/.test(String.fromCharCode(after))) continue;
    const before = bytes.toString('latin1', Math.max(0, at - 16), at);
    if (!/\/Type\s*$/.test(before)) continue;
    const count = nodeCount(bytes, at);
    if (count !== undefined && (largest === undefined || count > largest)) largest = count;
  }
  return largest;
}

/** The /Count of the dictionary around `at`: between its `<<` and its `>>`, within NODE_WINDOW either side. */
function nodeCount(bytes: Buffer, at: number): number | undefined {
  const start = bytes.lastIndexOf('<<', at);
  if (start === -1 || at - start > NODE_WINDOW) return undefined;
  const end = bytes.indexOf('>>', at);
  if (end === -1 || end - at > NODE_WINDOW) return undefined;
  const match = /\/Count\s+(\d+)(?![\d.])/.exec(bytes.toString('latin1', start, end));
  return match ? Number(match[1]) : undefined;
}
