/**
 * The development PKI `npm start` creates once and keeps under the local data
 * folder, as it does the development token: a throwaway CA, a signing
 * certificate and a timestamp authority's certificate issued by it. Marked
 * as untrusted in every name: nothing outside this machine trusts the CA, and
 * nothing should. Tests use it as the trust anchor of the validators.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import { dirname, join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { createServer } from 'node:http';
import { pemCertificates, toPem } from './signer.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const RSA = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as const;

/** One key and certificate of the development PKI, as PEM. */
export type DevIdentity = { certificatePem: string; privateKeyPem: string };

/**
 * The development PKI: the CA, the document signer, the timestamp authority,
 * and where the CA publishes its CRL (a loopback URL the signer's and the
 * TSA's certificates name as their CRL distribution point; PAdES B-LT embeds
 * what it answers).
 */
export type DevPki = { folder: string; ca: DevIdentity; signer: DevIdentity; tsa: DevIdentity; crlUrl: string };

const subject = (commonName: string) =>
  new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({ type: '2.5.4.10', value: new asn1js.Utf8String({ value: 'DocRender development (NOT TRUSTED)' }) }),
      new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: commonName }) }),
    ],
  });

const extension = (extnID: string, critical: boolean, value: asn1js.AsnType) =>
  new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });

const keyUsage = (byte: number, unusedBits: number) => new asn1js.BitString({ valueHex: new Uint8Array([byte]).buffer, unusedBits });

type Issued = { certificate: pkijs.Certificate; keys: CryptoKeyPair };

/**
 * Issues a certificate for `keys.publicKey` (or a public key given as SPKI
 * DER, for a key held elsewhere such as KMS) signed by `issuer` (self-signed
 * without one).
 */
export async function issueCertificate(options: {
  commonName: string;
  kind: 'ca' | 'signer' | 'tsa';
  publicKey: CryptoKey | Uint8Array;
  issuer?: { certificate: pkijs.Certificate; privateKey: CryptoKey };
  signingKey?: CryptoKey;
  validDays?: number;
  /** The CRL distribution point the certificate names (http URL of its issuer's CRL). */
  crlUrl?: string;
}): Promise<pkijs.Certificate> {
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  // DER wants an INTEGER's shortest form: a first byte of 0x00 before one below 0x80 is padding that strict
  // parsers refuse (OpenSSL's "unsupported", 1 certificate in 256), and a set top bit makes it negative.
  const serial = randomBytes(16);
  serial[0] = 0x40 | ((serial[0] ?? 0) & 0x3f);
  certificate.serialNumber = new asn1js.Integer({ valueHex: serial.buffer.slice(serial.byteOffset, serial.byteOffset + 16) as ArrayBuffer });
  certificate.subject = subject(options.commonName);
  certificate.issuer = options.issuer ? options.issuer.certificate.subject : subject(options.commonName);
  const now = Date.now();
  certificate.notBefore.value = new Date(now - DAY_MS);
  certificate.notAfter.value = new Date(now + (options.validDays ?? 3650) * DAY_MS);
  const extensions: pkijs.Extension[] = [];
  if (options.kind === 'ca') {
    extensions.push(extension('2.5.29.19', true, new pkijs.BasicConstraints({ cA: true }).toSchema()));
    extensions.push(extension('2.5.29.15', true, keyUsage(0x06, 1))); // keyCertSign, cRLSign
  } else {
    extensions.push(extension('2.5.29.19', true, new pkijs.BasicConstraints({ cA: false }).toSchema()));
    extensions.push(extension('2.5.29.15', true, keyUsage(options.kind === 'signer' ? 0xc0 : 0x80, options.kind === 'signer' ? 6 : 7)));
    if (options.kind === 'tsa') extensions.push(extension('2.5.29.37', true, new pkijs.ExtKeyUsage({ keyPurposes: ['1.3.6.1.5.5.7.3.8'] }).toSchema()));
  }
  if (options.crlUrl) {
    const point = new pkijs.DistributionPoint({ distributionPoint: [new pkijs.GeneralName({ type: 6, value: options.crlUrl })] });
    extensions.push(extension('2.5.29.31', false, new pkijs.CRLDistributionPoints({ distributionPoints: [point] }).toSchema()));
  }
  certificate.extensions = extensions;
  if (options.publicKey instanceof Uint8Array) {
    certificate.subjectPublicKeyInfo = pkijs.PublicKeyInfo.fromBER(new Uint8Array(options.publicKey).buffer as ArrayBuffer);
  } else {
    await certificate.subjectPublicKeyInfo.importKey(options.publicKey);
  }
  const signingKey = options.issuer?.privateKey ?? options.signingKey;
  if (!signingKey) throw new Error('A self-signed certificate needs its own private key');
  await certificate.sign(signingKey, 'SHA-256');
  return certificate;
}

async function identity(issued: Issued): Promise<DevIdentity> {
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', issued.keys.privateKey));
  return { certificatePem: toPem(new Uint8Array(issued.certificate.toSchema().toBER(false)), 'CERTIFICATE'), privateKeyPem: toPem(pkcs8, 'PRIVATE KEY') };
}

const generate = () => webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;

/** A loopback port free now: the CRL's URL is written into the certificates before its server listens there. */
/**
 * A loopback port for the development CA's CRL, kept with the PKI for as long
 * as its certificates name it: below Linux's ephemeral range (32768–60999),
 * so that no server listening on port 0 (every test server, an `npm start` on
 * PORT=0) is ever given it later; derived from the folder, so that two
 * checkouts rarely pick the same, and free when the PKI is made.
 */
async function crlPort(folder: string): Promise<number> {
  const start = createHash('sha256').update(folder).digest().readUInt16BE(0) % 10_000;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + ((start + attempt * 211) % 10_000);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
  }
  throw new Error('No free loopback port between 20000 and 29999 for the development CA\'s CRL');
}

/** Creates a fresh development PKI (not written anywhere); its CRL is to be served at `crlUrl`. */
export async function createDevPki(folder: string, crlUrl?: string): Promise<DevPki> {
  crlUrl ??= `http://127.0.0.1:${await crlPort(folder)}/ca.crl`;
  const caKeys = await generate();
  const ca = await issueCertificate({ commonName: 'DocRender development CA (NOT TRUSTED)', kind: 'ca', publicKey: caKeys.publicKey, signingKey: caKeys.privateKey });
  const issuer = { certificate: ca, privateKey: caKeys.privateKey };
  const signerKeys = await generate();
  const signer = await issueCertificate({ commonName: 'DocRender development signer (NOT TRUSTED)', kind: 'signer', publicKey: signerKeys.publicKey, issuer, validDays: 825, crlUrl });
  const tsaKeys = await generate();
  const tsa = await issueCertificate({ commonName: 'DocRender development timestamp authority (NOT TRUSTED)', kind: 'tsa', publicKey: tsaKeys.publicKey, issuer, validDays: 825, crlUrl });
  return {
    folder,
    ca: await identity({ certificate: ca, keys: caKeys }),
    signer: await identity({ certificate: signer, keys: signerKeys }),
    tsa: await identity({ certificate: tsa, keys: tsaKeys }),
    crlUrl,
  };
}

const FILES = { ca: 'ca', signer: 'signer', tsa: 'tsa' } as const;
const CRL_URL_FILE = 'crl.url';

/**
 * The CA's CRL (RFC 5280), revoking nothing, issued now: valid from a little
 * before now (a timestamp taken a moment before falls inside it) for a week.
 */
export async function issueDevCrl(ca: DevIdentity): Promise<Uint8Array> {
  const [caDer] = pemCertificates(ca.certificatePem);
  if (!caDer) throw new Error('The development CA has no certificate');
  const caCertificate = pkijs.Certificate.fromBER(new Uint8Array(caDer).buffer as ArrayBuffer);
  const pkcs8 = Buffer.from(ca.privateKeyPem.replace(/-----[A-Z ]+-----|\s+/g, ''), 'base64');
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, { name: RSA.name, hash: RSA.hash }, false, ['sign']);
  const now = Date.now();
  const crl = new pkijs.CertificateRevocationList();
  crl.version = 1;
  crl.issuer = caCertificate.subject;
  crl.thisUpdate = new pkijs.Time({ type: 0, value: new Date(now - 60 * 60 * 1000) });
  crl.nextUpdate = new pkijs.Time({ type: 0, value: new Date(now + 7 * DAY_MS) });
  crl.crlExtensions = new pkijs.Extensions({
    extensions: [extension('2.5.29.20', false, new asn1js.Integer({ value: Math.floor(now / 1000) }))], // cRLNumber
  });
  await crl.sign(key, 'SHA-256');
  return new Uint8Array(crl.toSchema(true).toBER(false));
}

/** Serves the development CA's CRL at `pki.crlUrl` on loopback (a fresh one per request), as `npm start` and the tests do. */
export async function startDevCrl(pki: DevPki): Promise<{ close: () => Promise<void> }> {
  const url = new URL(pki.crlUrl);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== url.pathname) return void res.writeHead(404).end();
    issueDevCrl(pki.ca).then(
      (crl) => res.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(crl),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(url.port), url.hostname, resolve);
  });
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * True when `pki.crlUrl` already answers a CRL signed by this PKI's CA: another
 * `npm start` of the same checkout (the same `.local/signing/`) serves it, and
 * a second one shares it instead of failing on the taken port.
 */
export async function devCrlServedElsewhere(pki: DevPki): Promise<boolean> {
  try {
    const answer = await fetch(pki.crlUrl, { signal: AbortSignal.timeout(2_000) });
    if (!answer.ok) return false;
    const body = new Uint8Array(await answer.arrayBuffer());
    const crl = pkijs.CertificateRevocationList.fromBER(body.buffer as ArrayBuffer);
    const [caDer] = pemCertificates(pki.ca.certificatePem);
    if (!caDer) return false;
    return await crl.verify({ issuerCertificate: pkijs.Certificate.fromBER(new Uint8Array(caDer).buffer as ArrayBuffer) });
  } catch {
    return false;
  }
}

/**
 * The development PKI kept in `folder` (created and written there on the
 * first call, read back on later ones: restarts keep the same CA). Written
 * into a sibling folder and renamed into place, so that two `npm start`s
 * starting at once never read half of one, nor a CA of one and a signer of the other.
 */
export async function loadOrCreateDevPki(folder: string): Promise<DevPki & { created: boolean }> {
  const load = (): DevPki => {
    const read = (name: string, part: string) => readFileSync(join(folder, `${name}.${part}.pem`), 'utf8');
    const identity = (name: string): DevIdentity => ({ certificatePem: read(name, 'cert'), privateKeyPem: read(name, 'key') });
    return { folder, ca: identity(FILES.ca), signer: identity(FILES.signer), tsa: identity(FILES.tsa), crlUrl: readFileSync(join(folder, CRL_URL_FILE), 'utf8').trim() };
  };
  if (existsSync(join(folder, CRL_URL_FILE))) return { ...load(), created: false };
  // A PKI of an earlier version (its certificates name no CRL, so B-LT could not embed one) is set aside and a new one made.
  if (existsSync(join(folder, 'ca.cert.pem'))) renameSync(folder, `${folder.replace(/[\\/]+$/, '')}.old-${Date.now()}`);
  const pki = await createDevPki(folder);
  mkdirSync(dirname(folder), { recursive: true });
  const staging = mkdtempSync(`${folder.replace(/[\\/]+$/, '')}.new-`);
  try {
    for (const name of Object.values(FILES)) {
      writeFileSync(join(staging, `${name}.cert.pem`), pki[name].certificatePem);
      writeFileSync(join(staging, `${name}.key.pem`), pki[name].privateKeyPem, { mode: 0o600 });
    }
    writeFileSync(join(staging, CRL_URL_FILE), `${pki.crlUrl}\n`);
    writeFileSync(
      join(staging, 'README.txt'),
      'DocRender development signer: a throwaway CA made by `npm start` on this machine.\nNOT TRUSTED anywhere: never use it for a real document. Delete this folder to get a new one.\n',
    );
    chmodSync(staging, 0o700);
    // An empty folder (a test's fresh temporary one) is replaced; one with a PKI in it is kept: another start got there first.
    if (existsSync(folder) && readdirSync(folder).length === 0) rmdirSync(folder);
    renameSync(staging, folder);
    return { ...pki, created: true };
  } catch (error) {
    if (!existsSync(join(folder, CRL_URL_FILE))) throw error;
    return { ...load(), created: false };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
