import { createPrivateKey, sign } from 'node:crypto';
import type { Signer, SigningKey } from './signer.js';

/**
 * A signer whose key is in this process (the development signer, a PKCS#12
 * unwrapped in memory): Node's OpenSSL signs. The key stays in the closure.
 */
export function localSigner(privateKeyPem: string, chain: Uint8Array[]): Signer {
  const key = createPrivateKey(privateKeyPem);
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const kind: SigningKey | undefined =
    key.asymmetricKeyType === 'rsa'
      ? { keyType: 'RSA', digest: 'sha256' }
      : key.asymmetricKeyType === 'ec' && curve === 'prime256v1'
        ? { keyType: 'EC', digest: 'sha256' }
        : key.asymmetricKeyType === 'ec' && curve === 'secp384r1'
          ? { keyType: 'EC', digest: 'sha384' }
          : undefined;
  if (!kind) throw new Error(`Unsupported signing key type ${key.asymmetricKeyType ?? 'unknown'} ${curve ?? ''} (RSA, EC P-256 or P-384)`);
  return { ...kind, chain, sign: async (data) => new Uint8Array(sign(kind.digest, data, key)) };
}
