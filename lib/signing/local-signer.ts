import { createPrivateKey, sign } from 'node:crypto';
import type { Signer } from './signer.js';

/**
 * A signer whose key is in this process (the development signer, a PKCS#12
 * unwrapped in memory): Node's OpenSSL signs. The key stays in the closure.
 */
export function localSigner(privateKeyPem: string, chain: Uint8Array[]): Signer {
  const key = createPrivateKey(privateKeyPem);
  const keyType = key.asymmetricKeyType === 'rsa' ? 'RSA' : key.asymmetricKeyType === 'ec' ? 'EC' : undefined;
  if (!keyType) throw new Error(`Unsupported signing key type ${key.asymmetricKeyType ?? 'unknown'}`);
  return { keyType, chain, sign: async (data) => new Uint8Array(sign('sha256', data, key)) };
}
