import { SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import * as pkijs from 'pkijs';
import { SignerUnavailableError } from './errors.js';
import { digestOf } from './cms.js';
import type { Signer, SigningKey } from './signer.js';

const RSA_KEY = '1.2.840.113549.1.1.1';
const EC_KEY = '1.2.840.10045.2.1';
const P256 = '1.2.840.10045.3.1.7';
const P384 = '1.3.132.0.34';

/** What a public key is and the digest it signs with: RSA or EC P-256 with SHA-256, EC P-384 with SHA-384; anything else is refused. */
export function publicKeyType(key: pkijs.PublicKeyInfo): SigningKey {
  const { algorithmId, algorithmParams } = key.algorithm;
  if (algorithmId === RSA_KEY) return { keyType: 'RSA', digest: 'sha256' };
  const curve = (algorithmParams as { valueBlock?: { toString(): string } } | undefined)?.valueBlock?.toString();
  if (algorithmId === EC_KEY && curve === P256) return { keyType: 'EC', digest: 'sha256' };
  if (algorithmId === EC_KEY && curve === P384) return { keyType: 'EC', digest: 'sha384' };
  throw new Error('The signing key must be RSA or ECC NIST P-256 or P-384');
}

/** The key of a DER certificate (see publicKeyType). */
export function certificateKeyType(leaf: Uint8Array): SigningKey {
  return publicKeyType(pkijs.Certificate.fromBER(new Uint8Array(leaf).buffer as ArrayBuffer).subjectPublicKeyInfo);
}

/**
 * A signer whose key lives in AWS KMS: the signed attributes are signed by
 * KMS `Sign`, the key never leaves it. `MessageType: DIGEST`: KMS gets their
 * digest (SHA-256, or SHA-384 for a P-384 key), never the bytes. Tested
 * against LocalStack's KMS (`npm run test:localstack`), which signs a DIGEST
 * as AWS does (cryptography's Prehashed); moto 5.2 hashes a DIGEST message
 * again (getmoto/moto#10202), so the moto suite keeps only KMS's error paths.
 * A refusal or failure is SignerUnavailableError naming the signer and the
 * SDK's error name only: its message can carry the key's ARN.
 */
export function kmsSigner(options: { name: string; kms: KMSClient; keyId: string; chain: Uint8Array[] }): Signer {
  const [leaf] = options.chain;
  if (!leaf) throw new Error('The chain is empty');
  const key = certificateKeyType(leaf);
  return {
    ...key,
    chain: options.chain,
    sign: async (data) => {
      try {
        return await signWithKms(options.kms, options.keyId, key, data);
      } catch (error) {
        throw new SignerUnavailableError(options.name, (error as Error).name || 'Error');
      }
    },
  };
}

/** KMS `Sign` of `data`'s digest (MessageType DIGEST), PKCS #1 v1.5 SHA-256 for RSA, DER ECDSA SHA-256 (P-256) or SHA-384 (P-384). */
export async function signWithKms(kms: KMSClient, keyId: string, key: SigningKey, data: Uint8Array): Promise<Uint8Array> {
  const answer = await kms.send(
    new SignCommand({
      KeyId: keyId,
      Message: digestOf(data, key.digest),
      MessageType: 'DIGEST',
      SigningAlgorithm: key.keyType === 'RSA' ? 'RSASSA_PKCS1_V1_5_SHA_256' : key.digest === 'sha384' ? 'ECDSA_SHA_384' : 'ECDSA_SHA_256',
    }),
  );
  if (!answer.Signature) throw new Error('KMS answered no signature');
  return answer.Signature;
}
