/**
 * PDF files built in code for the decoder bounds' tests: each a small,
 * well-formed file (objects, a cross-reference table, a trailer) whose
 * content is what a hostile caller would send.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

/** A PDF of the given objects (numbered from 1, object 1 the catalog), with a correct cross-reference table. */
export function pdfOf(objects: Array<string | Buffer>): Buffer {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), Buffer.from(object), Buffer.from('\nendobj\n')]);
    chunks.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(chunks);
}

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const page = (extra = '') => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${extra}>>`;

/** A one-page PDF: the baseline the hostile ones differ from. */
export const onePagePdf = () => pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page()]);

/** A page whose dictionary holds arrays nested `depth` deep. */
export const deepNestingPdf = (depth: number) => pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(`/Deep ${'['.repeat(depth)}${']'.repeat(depth)} `)]);

/** A page whose dictionary holds dictionaries nested `depth` deep. */
export const deepDictionaryPdf = (depth: number) => pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(`/Deep ${'<< /A '.repeat(depth)}1${' >>'.repeat(depth)} `)]);

/** An object stream (parsed, so inflated, while the file loads) holding object 5, `null`, padded with spaces to `inflated` bytes. */
export function objectStreamBombPdf(inflated: number): Buffer {
  const data = deflateSync(Buffer.concat([Buffer.from('5 0 null'), Buffer.alloc(inflated - 8, ' ')]), { level: 9 });
  const stream = Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
  return pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(), stream]);
}

/** A page tree whose second node lists the first among its kids: a loop. */
export const kidsLoopPdf = () => pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', page(), '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>']);

/** `pages` pages, all the same page object listed again and again: a few bytes each. */
export const manyPagesPdf = (pages: number) => pdfOf([CATALOG, `<< /Type /Pages /Kids [${'3 0 R '.repeat(pages)}] /Count ${pages} >>`, page()]);

/** One page with this MediaBox (in points; 72 an inch). */
export const pageSizePdf = (width: number, height: number) =>
  pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] >>`]);

/** `count` small objects beside one page. */
export const manyObjectsPdf = (count: number) => pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(), ...Array.from({ length: count }, () => '0')]);

/** A page whose /Chain leads through `links` objects, each an array holding a reference to the next. */
export function referenceChainPdf(links: number): Buffer {
  const chain = Array.from({ length: links }, (_, i) => (i === links - 1 ? '[1]' : `[${i + 5} 0 R]`));
  return pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page('/Chain 4 0 R '), ...chain]);
}

/** RC4, for the encrypted hostile files (Node's OpenSSL no longer offers it). */
function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

/**
 * `objectStreamBombPdf` encrypted (RC4 128-bit, V 2 R 3, an empty user
 * password, so any reader opens it): its object stream is encrypted, so only
 * a parse that decrypts as it reads finds the bomb.
 */
export function encryptedObjectStreamBombPdf(inflated: number): Buffer {
  const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
  const padding = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');
  const id = Buffer.alloc(16, 7);
  const owner = Buffer.alloc(32, 9);
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(-4);
  let key = md5(padding, owner, permissions, id);
  for (let i = 0; i < 50; i++) key = md5(key);
  let user = rc4(key, md5(padding, id));
  for (let i = 1; i <= 19; i++) user = rc4(Buffer.from(key.map((byte) => byte ^ i)), user);
  user = Buffer.concat([user, Buffer.alloc(16)]);
  const objectKey = (num: number) => md5(key, Buffer.from([num & 255, (num >> 8) & 255, (num >> 16) & 255, 0, 0]));
  const data = rc4(objectKey(4), deflateSync(Buffer.concat([Buffer.from('6 0 null'), Buffer.alloc(inflated - 8, ' ')]), { level: 9 }));
  const stream = Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
  const encrypt = `<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> >>`;
  const file = pdfOf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(), stream, encrypt]);
  // The trailer names the encryption dictionary (object 5) and the file identifier the key is made from.
  return Buffer.from(file.toString('latin1').replace('/Root 1 0 R >>', `/Root 1 0 R /Encrypt 5 0 R /ID [<${id.toString('hex')}> <${id.toString('hex')}>] >>`), 'latin1');
}
