/**
 * A certificate signing request (PKCS #10) for a key in AWS KMS, signed by
 * KMS itself: what a CA needs to issue the signing certificate of a `kms`
 * signer, without the key ever leaving KMS (`npm run -s signing -- csr`).
 */
import { GetPublicKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { signatureAlgorithm } from './cms.js';
import { publicKeyType, signWithKms } from './kms-signer.js';
import { toPem } from './signer.js';

/** The attribute types a subject may name, by their usual short names. */
const NAME_TYPES: Record<string, string> = { CN: '2.5.4.3', O: '2.5.4.10', OU: '2.5.4.11', C: '2.5.4.6', L: '2.5.4.7', ST: '2.5.4.8', E: '1.2.840.113549.1.9.1' };

/** Reads `CN=Jane Roe,O=Example GmbH,C=DE` (no escaped commas) into a name. */
export function parseSubject(subject: string): pkijs.RelativeDistinguishedNames {
  const name = new pkijs.RelativeDistinguishedNames();
  for (const part of subject.split(',').map((entry) => entry.trim()).filter(Boolean)) {
    const [key = '', ...rest] = part.split('=');
    const type = NAME_TYPES[key.trim().toUpperCase()];
    const value = rest.join('=').trim();
    if (!type || !value) throw new Error(`"${part}" is not one of ${Object.keys(NAME_TYPES).join(', ')}=<value>`);
    const text = type === NAME_TYPES.C ? new asn1js.PrintableString({ value }) : type === NAME_TYPES.E ? new asn1js.IA5String({ value }) : new asn1js.Utf8String({ value });
    name.typesAndValues.push(new pkijs.AttributeTypeAndValue({ type, value: text }));
  }
  if (name.typesAndValues.length === 0) throw new Error('The subject names nothing');
  return name;
}

/** The CSR (PEM) for the KMS key `keyId` with `subject`, signed by that key. */
export async function kmsCertificateRequest(kms: KMSClient, keyId: string, subject: string): Promise<string> {
  const { PublicKey } = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (!PublicKey) throw new Error('KMS gave no public key');
  const publicKey = pkijs.PublicKeyInfo.fromBER(new Uint8Array(PublicKey).buffer as ArrayBuffer);
  const key = publicKeyType(publicKey);
  const request = new pkijs.CertificationRequest();
  request.version = 0;
  request.subject = parseSubject(subject);
  request.subjectPublicKeyInfo = publicKey;
  request.attributes = [];
  // The request info as the encoder writes it (its first element), signed as it will be sent.
  const info = (request.toSchema(true) as asn1js.Sequence).valueBlock.value[0];
  if (!info) throw new Error('The request has no body');
  const tbs = new Uint8Array(info.toBER(false));
  const signature = await signWithKms(kms, keyId, key, tbs);
  request.tbsView = tbs;
  request.signatureAlgorithm = signatureAlgorithm(key);
  request.signatureValue = new asn1js.BitString({ valueHex: new Uint8Array(signature).buffer as ArrayBuffer });
  return toPem(new Uint8Array(request.toSchema(false).toBER(false)), 'CERTIFICATE REQUEST');
}
