import * as pkijs from 'pkijs';

/**
 * A signer: a private key and its certificate chain, configured by the
 * deployer under a name. The key never comes here: `sign` hands the bytes to
 * sign to wherever the key is (AWS KMS, a PKCS#12 unwrapped in memory, the
 * local development key) and answers the signature value as CMS carries it
 * (PKCS #1 v1.5 for RSA, DER ECDSA-Sig-Value for EC), with the key's digest.
 */
export type Signer = SigningKey & {
  /** DER certificates, the signing certificate first, then its issuers (the root may be left out). */
  chain: Uint8Array[];
  /** Signs `data` (the DER of the signed attributes) with the key's digest. */
  sign: (data: Uint8Array) => Promise<Uint8Array>;
};

/**
 * What kind of key signs, and with which digest: RSA (2048 to 4096 bits) and
 * ECC NIST P-256 with SHA-256, ECC NIST P-384 with SHA-384 (the digest of its
 * strength, as KMS pairs them: ECDSA_SHA_384). The CMS's digests follow it.
 */
export type SigningKey = { keyType: 'RSA' | 'EC'; digest: 'sha256' | 'sha384' };

/** Reads PEM certificates (a chain file: any number of CERTIFICATE blocks) as DER, in order. */
export function pemCertificates(pem: string): Uint8Array[] {
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)];
  return blocks.map((block) => new Uint8Array(Buffer.from((block[1] ?? '').replace(/\s+/g, ''), 'base64')));
}

/** DER as a PEM block of `label`. */
export function toPem(der: Uint8Array, label: string): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The common name of a DER certificate's subject, if it has one. */
export function commonName(der: Uint8Array): string | undefined {
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(der).buffer as ArrayBuffer);
  const cn = certificate.subject.typesAndValues.find((entry) => entry.type === '2.5.4.3');
  return cn ? String(cn.value.valueBlock.value) : undefined;
}
