import { SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import * as pkijs from 'pkijs';
import { SignerUnavailableError } from './errors.js';
import type { Signer } from './signer.js';

const RSA_KEY = '1.2.840.113549.1.1.1';
const EC_KEY = '1.2.840.10045.2.1';
const P256 = '1.2.840.10045.3.1.7';

/** Whether a public key is RSA or EC P-256 (what SHA-256 signing with KMS takes); anything else is refused. */
export function publicKeyType(key: pkijs.PublicKeyInfo): Signer['keyType'] {
  const { algorithmId, algorithmParams } = key.algorithm;
  if (algorithmId === RSA_KEY) return 'RSA';
  const curve = (algorithmParams as { valueBlock?: { toString(): string } } | undefined)?.valueBlock?.toString();
  if (algorithmId === EC_KEY && curve === P256) return 'EC';
  throw new Error('The signing key must be RSA or ECC NIST P-256');
}

/** The key type of a DER certificate's key (see publicKeyType). */
export function certificateKeyType(leaf: Uint8Array): Signer['keyType'] {
  return publicKeyType(pkijs.Certificate.fromBER(new Uint8Array(leaf).buffer as ArrayBuffer).subjectPublicKeyInfo);
}

/**
 * A signer whose key lives in AWS KMS: the signed attributes are signed by
 * KMS `Sign`, the key never leaves it. `MessageType: RAW` hands KMS the
 * signed attributes (about 200 bytes, far under its 4096) and KMS computes
 * their SHA-256 itself: the same signature a `DIGEST` of them gives, and the
 * one mode the KMS emulators implement faithfully (moto 5.2 hashes a DIGEST
 * message again; getmoto/moto#10202), so the tests prove the very call AWS
 * gets. A refusal or failure is SignerUnavailableError naming the signer and
 * the SDK's error name only: its message can carry the key's ARN.
 */
export function kmsSigner(options: { name: string; kms: KMSClient; keyId: string; chain: Uint8Array[] }): Signer {
  const [leaf] = options.chain;
  if (!leaf) throw new Error('The chain is empty');
  const keyType = certificateKeyType(leaf);
  return {
    keyType,
    chain: options.chain,
    sign: async (data) => {
      try {
        return await signWithKms(options.kms, options.keyId, keyType, data);
      } catch (error) {
        throw new SignerUnavailableError(options.name, (error as Error).name || 'Error');
      }
    },
  };
}

/** KMS `Sign` of `data` (RAW: KMS hashes it with SHA-256), PKCS #1 v1.5 for RSA, DER ECDSA for P-256. */
export async function signWithKms(kms: KMSClient, keyId: string, keyType: Signer['keyType'], data: Uint8Array): Promise<Uint8Array> {
  const answer = await kms.send(
    new SignCommand({
      KeyId: keyId,
      Message: data,
      MessageType: 'RAW',
      SigningAlgorithm: keyType === 'RSA' ? 'RSASSA_PKCS1_V1_5_SHA_256' : 'ECDSA_SHA_256',
    }),
  );
  if (!answer.Signature) throw new Error('KMS answered no signature');
  return answer.Signature;
}
