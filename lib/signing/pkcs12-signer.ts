import { createPrivateKey, createPublicKey } from 'node:crypto';
import * as pkijs from 'pkijs';
import { localSigner } from './local-signer.js';
import { toPem, type Signer } from './signer.js';

const KEY_BAG = '1.2.840.113549.1.12.10.1.2';
const CERT_BAG = '1.2.840.113549.1.12.10.1.3';

const buffer = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer as ArrayBuffer;

/**
 * A signer from a PKCS#12 file (a key and certificates from a CA), opened in
 * memory with its password: its integrity checked, its key unwrapped, the
 * certificate of that key first in the chain. PBES2 (AES, PBKDF2) files, as
 * OpenSSL 3 and current CAs write them; the legacy RC2/3DES ones are refused
 * (re-export them: `openssl pkcs12 -legacy -in old.p12 | openssl pkcs12 -export`).
 * Throws a plain Error that names no password.
 */
export async function pkcs12Signer(file: Uint8Array, password: string): Promise<Signer> {
  const secret = buffer(new TextEncoder().encode(password));
  const pfx = pkijs.PFX.fromBER(buffer(file));
  await pfx.parseInternalValues({ password: secret, checkIntegrity: true });
  const safe = pfx.parsedValue?.authenticatedSafe;
  if (!safe) throw new Error('The PKCS#12 file holds no contents');
  await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password: secret })) });
  let keyDer: Uint8Array | undefined;
  const certificates: Uint8Array[] = [];
  for (const content of safe.parsedValue?.safeContents ?? []) {
    for (const bag of content.value.safeBags) {
      if (bag.bagId === KEY_BAG) {
        const shrouded = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
        // Declared protected, yet it is how the key is unwrapped (PFX's own parsing stops at the bag).
        await (shrouded as unknown as { parseInternalValues(parameters: { password: ArrayBuffer }): Promise<void> }).parseInternalValues({ password: secret });
        if (shrouded.parsedValue) keyDer ??= new Uint8Array(shrouded.parsedValue.toSchema().toBER(false));
      } else if (bag.bagId === CERT_BAG) {
        const parsed = (bag.bagValue as pkijs.CertBag).parsedValue;
        if (parsed instanceof pkijs.Certificate) certificates.push(new Uint8Array(parsed.toSchema().toBER(false)));
      }
    }
  }
  if (!keyDer) throw new Error('The PKCS#12 file holds no private key');
  const keyPem = toPem(keyDer, 'PRIVATE KEY');
  const publicKey = Buffer.from(createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' }));
  const ownsKey = (der: Uint8Array) =>
    Buffer.from(pkijs.Certificate.fromBER(buffer(der)).subjectPublicKeyInfo.toSchema().toBER(false)).equals(publicKey);
  const leaf = certificates.find(ownsKey);
  if (!leaf) throw new Error('The PKCS#12 file holds no certificate for its key');
  return localSigner(keyPem, [leaf, ...certificates.filter((der) => der !== leaf)]);
}
