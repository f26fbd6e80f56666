/**
 * CMS SignedData (RFC 5652) as PAdES baseline asks for it (ETSI EN 319 142-1):
 * detached content, the signed attributes contentType, messageDigest and
 * signingCertificateV2 (no signingTime: the signature dictionary's /M holds
 * the claimed time), the chain in `certificates`, and for B-T the timestamp
 * token over the signature value as the unsigned signatureTimeStampToken.
 * The same builder makes the local timestamp authority's tokens (a TSTInfo as
 * encapsulated content). The private key is never here: `Signer.sign` gets
 * the DER of the signed attributes, and signs them wherever the key lives.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { Signer, SigningKey } from './signer.js';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
} as const;

export const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();
/** `bytes` hashed with the key's digest. */
export const digestOf = (bytes: Uint8Array, digest: SigningKey['digest']): Buffer => createHash(digest).update(bytes).digest();

/** The signature algorithm of a key (RSA: sha256WithRSAEncryption; EC: ecdsa-with-SHA256 or -SHA384). */
export function signatureAlgorithm(key: SigningKey): pkijs.AlgorithmIdentifier {
  if (key.keyType === 'RSA') return new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRsa, algorithmParams: new asn1js.Null() });
  return new pkijs.AlgorithmIdentifier({ algorithmId: key.digest === 'sha384' ? OID.ecdsaWithSha384 : OID.ecdsaWithSha256 });
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer as ArrayBuffer;

/** Parses DER, or throws with `what` named. */
export function parseDer(bytes: Uint8Array, what: string): asn1js.AsnType {
  const parsed = asn1js.fromBER(toArrayBuffer(bytes));
  if (parsed.offset === -1) throw new Error(`${what} is not DER`);
  return parsed.result;
}

/** The ESS signingCertificateV2 value (RFC 5035) naming `certificate` by its SHA-256 hash. */
function signingCertificateV2(certificate: Uint8Array): asn1js.Sequence {
  // ESSCertIDv2: the hash algorithm is SHA-256 by default and so left out (DER omits defaults).
  const essCertId = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: toArrayBuffer(sha256(certificate)) })] });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertId] })] });
}

function attribute(type: string, value: asn1js.AsnType): pkijs.Attribute {
  return new pkijs.Attribute({ type, values: [value] });
}

/** DER orders a SET OF by its members' encodings: the attributes are placed in that order once. */
function derSorted(attributes: pkijs.Attribute[]): pkijs.Attribute[] {
  const encoded = attributes.map((a) => ({ a, der: Buffer.from(a.toSchema().toBER(false)) }));
  return encoded.sort((x, y) => Buffer.compare(x.der, y.der)).map(({ a }) => a);
}

export type SignedDataInput = {
  /** The digest (the signer's) the signature commits to: of the PDF's byte ranges, or of the encapsulated content. */
  messageDigest: Uint8Array;
  signer: Signer;
  /** What the signed content is: `data` (detached, PAdES) or `tstInfo` (a timestamp token, content enclosed). */
  eContentType: string;
  eContent?: Uint8Array;
};

/**
 * Builds and signs a SignedData; returns the ContentInfo's DER. `unsigned`
 * receives the signature value and may answer unsigned attributes for it
 * (the signature timestamp).
 */
export async function signedData(
  input: SignedDataInput,
  unsigned?: (signatureValue: Uint8Array) => Promise<pkijs.Attribute[]>,
): Promise<Uint8Array> {
  const { signer } = input;
  const [leafDer] = signer.chain;
  if (!leafDer) throw new Error('The signer has no certificate');
  const leaf = pkijs.Certificate.fromBER(toArrayBuffer(leafDer));
  const attributes = derSorted([
    attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: input.eContentType })),
    attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: toArrayBuffer(input.messageDigest) })),
    attribute(OID.signingCertificateV2, signingCertificateV2(leafDer)),
  ]);
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes });
  // What is signed is the attributes as a SET (tag 0x31), not as the [0] they are stored under.
  const toSign = new Uint8Array(signedAttrs.toSchema().toBER(false));
  toSign[0] = 0x31;
  const signatureValue = await signer.sign(toSign);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: leaf.issuer, serialNumber: leaf.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID[signer.digest] }),
    signedAttrs,
    signatureAlgorithm: signatureAlgorithm(signer),
    signature: new asn1js.OctetString({ valueHex: toArrayBuffer(signatureValue) }),
  });
  const extra = unsigned ? await unsigned(signatureValue) : [];
  if (extra.length > 0) signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: extra });
  const data = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID[signer.digest] })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: input.eContentType,
      ...(input.eContent ? { eContent: new asn1js.OctetString({ valueHex: toArrayBuffer(input.eContent) }) } : {}),
    }),
    certificates: signer.chain.map((der) => pkijs.Certificate.fromBER(toArrayBuffer(der))),
    signerInfos: [signerInfo],
  });
  const schema = data.toSchema(true) as asn1js.Sequence;
  if (input.eContent) {
    // pkijs writes enclosed content as a constructed OCTET STRING (BER); DER, which validators hold a token to, wants it primitive.
    schema.valueBlock.value[2] = new asn1js.Sequence({
      value: [
        new asn1js.ObjectIdentifier({ value: input.eContentType }),
        new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [new asn1js.OctetString({ valueHex: toArrayBuffer(input.eContent) })] }),
      ],
    });
  }
  const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: schema });
  return new Uint8Array(info.toSchema().toBER(false));
}

/** The unsigned attribute that carries a timestamp token (its ContentInfo's DER). */
export function timestampAttribute(token: Uint8Array): pkijs.Attribute {
  return attribute(OID.signatureTimeStampToken, parseDer(token, 'The timestamp token'));
}
