/**
 * PAdES signatures proven by independent validators: pyHanko (intact, whole
 * file covered, chain trusted against the development CA, timestamp verified
 * for B-T, DocMDP as asked) and poppler's pdfsig read what the sign step
 * writes, qpdf finds the file clean, and a copy with one byte of its page
 * content changed fails both. Signers: the development one, and PKCS#12
 * (RSA, ECC P-384) from moto's Secrets Manager; KMS's failures through moto's
 * server (its successful signing is kms-localstack.test.ts's: moto signs a
 * DIGEST wrongly).
 */
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateKeyCommand, GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, StandardFonts } from '@cantoo/pdf-lib';
import { OptionError } from '../../../lib/pdf/errors.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import type { SignPlan } from '../../../lib/finishing/pipeline/finishing-plan.js';
import { signStep } from '../../../lib/finishing/steps/sign/sign.js';
import { createS3Client } from '../../../lib/aws/s3-client.js';
import { loadOrCreateDevPki, startDevCrl, type DevPki } from '../../../lib/signing/dev-pki.js';
import { SignerUnavailableError, TimestampAuthorityError } from '../../../lib/signing/errors.js';
import { toResponse } from '../../../lib/http/error-mapper.js';
import { localSigner } from '../../../lib/signing/local-signer.js';
import { pemCertificates } from '../../../lib/signing/signer.js';
import { signerRegistry, type SignerRegistry } from '../../../lib/signing/signers.js';
import { startLocalTsa } from '../../../lib/signing/timestamp.js';
import { validationMaterial } from '../../../lib/signing/validation-material.js';
import { closedPort } from '../../helpers/closed-port.js';
import { chainForKey, pdfsig, startMoto, validatePades, type PadesStatus } from '../../helpers/pades.js';
import { qpdf } from '../../helpers/pdf-tools.js';
import { tempDir } from '../../helpers/temp-dir.js';

const noText = async (): Promise<Uint8Array> => {
  throw new Error('no text is drawn in these tests');
};

/** A one-page contract, as a printed PDF would come to the sign step. */
async function contract(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText('Hello contract: the parties agree.', { font, size: 18, x: 72, y: 700 });
  return doc.save({ useObjectStreams: false });
}

/** The file with one byte of its first page's content stream changed. */
async function tampered(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const contents = doc.getPage(0).node.get(PDFName.of('Contents'));
  const first = contents instanceof PDFArray ? contents.get(0) : contents;
  const ref = first instanceof PDFRef ? first : undefined;
  assert.ok(ref, 'the page has one content stream');
  const bytes = Buffer.from(pdf);
  const objectAt = bytes.indexOf(`\n${ref.objectNumber} 0 obj`);
  const streamAt = bytes.indexOf('stream', objectAt) + 'stream\n'.length + 2;
  assert.ok(objectAt > 0 && streamAt > objectAt);
  const copy = Buffer.from(bytes);
  copy[streamAt] = (copy[streamAt] ?? 0) ^ 0x01;
  return copy;
}

/** How many certificates and CRLs the file's DSS holds (read with pdf-lib). */
async function dssOf(pdf: Uint8Array): Promise<{ certs: number; crls: number }> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
  return { certs: dss.lookup(PDFName.of('Certs'), PDFArray).size(), crls: dss.lookup(PDFName.of('CRLs'), PDFArray).size() };
}

const only = (statuses: PadesStatus[] | undefined): PadesStatus => {
  assert.equal(statuses?.length, 1, 'one signature');
  return statuses[0] as PadesStatus;
};

/** pyHanko: intact, valid, trusted against the development CA, the whole file covered, nothing changed after. */
function assertValid(pdf: Uint8Array, caPem: string): PadesStatus {
  const { statuses, stderr } = validatePades(pdf, caPem);
  const status = only(statuses);
  assert.ok(status.intact && status.valid && status.trusted, `${status.summary} ${stderr}`);
  assert.equal(status.coverage, 'ENTIRE_FILE');
  assert.equal(status.modificationLevel, 'NONE');
  assert.equal(status.subFilter, '/ETSI.CAdES.detached');
  const read = pdfsig(pdf).stdout;
  assert.match(read, /Signature Validation: Signature is Valid\./);
  assert.match(read, /Total document signed/);
  const check = qpdf(pdf, ['--check']);
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /No syntax or stream encoding errors found/);
  return status;
}

function devRegistry(pki: DevPki, timestampUrl?: string): SignerRegistry {
  return signerRegistry({ signers: { default: { kind: 'local', folder: pki.folder } }, ...(timestampUrl ? { timestampUrl } : {}) }, {
    kms: () => assert.fail('no KMS'),
    ssm: () => assert.fail('no SSM'),
    s3: () => assert.fail('no S3'),
    secrets: () => assert.fail('no Secrets Manager'),
  });
}

const sign = (pdf: Uint8Array, plan: Partial<SignPlan>, signers: SignerRegistry) =>
  finishPdf(pdf, { sign: signStep({ signer: 'default', level: 'B-B', ...plan }, signers, noText, () => new Date()) }, unboundedBudget());

describe('the sign step', () => {
  let pki: DevPki;
  let tsa: { url: string; close: () => Promise<void> };
  let pdf: Uint8Array;

  before(async () => {
    pki = await loadOrCreateDevPki(tempDir('signing-'));
    const tsaChain = [...pemCertificates(pki.tsa.certificatePem), ...pemCertificates(pki.ca.certificatePem)];
    tsa = await startLocalTsa(localSigner(pki.tsa.privateKeyPem, tsaChain));
    pdf = await contract();
  });
  after(() => tsa.close());

  it('signs at B-B: pyHanko and pdfsig find it intact and trusted over the whole file, qpdf clean, no timestamp', async () => {
    const signed = await sign(pdf, { reason: 'Agreed', location: 'Berlin', contactInfo: 'legal@example.com', name: 'Jane Roe' }, devRegistry(pki));
    const status = assertValid(signed, pki.ca.certificatePem);
    assert.equal(status.timestamp, null);
    assert.equal(status.docmdp, null, 'an approval signature');
    assert.match(status.signer, /DocRender development signer \(NOT TRUSTED\)/);
  });

  it("signs a document whose own content carries the placeholders' text (a caller's PDF): the signature is written into its own dictionary and validates", async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([595, 842]);
    const stars = '*'.repeat(10);
    // An uncompressed stream after the page's: the text comes both before and after the page content in the file.
    const text = `% /ByteRange [ 0 /${stars} /${stars} /${stars} ]\n% /Contents <${'0'.repeat(24 * 1024 * 2)}>\n`;
    page.node.set(PDFName.of('PieceInfo'), doc.context.register(doc.context.stream(text)));
    const hostile = await doc.save({ useObjectStreams: false });
    assert.ok(Buffer.from(hostile).includes(`/ByteRange [ 0 /${stars}`), 'the input carries the marker');
    const signed = await sign(hostile, { reason: 'Agreed' }, devRegistry(pki));
    assertValid(signed, pki.ca.certificatePem);
  });

  it('signs a document that is signed already as an incremental update: pyHanko finds both signatures intact and valid, the first one unchanged', async () => {
    const first = await sign(pdf, { reason: 'Offered', certify: 'formFilling' }, devRegistry(pki));
    const second = await sign(first, { reason: 'Accepted', location: 'Paris' }, devRegistry(pki));
    assert.deepEqual(Buffer.from(second.subarray(0, first.length)), Buffer.from(first), 'every byte of the signed file is kept');
    const { statuses, stderr } = validatePades(second, pki.ca.certificatePem);
    assert.equal(statuses?.length, 2, stderr);
    for (const status of statuses ?? []) assert.ok(status.intact && status.valid && status.trusted, `${status.summary} ${stderr}`);
    const read = pdfsig(second).stdout;
    assert.equal(read.match(/Signature Validation: Signature is Valid\./g)?.length, 2, read);
    const check = qpdf(second, ['--check']);
    assert.equal(check.status, 0, check.stdout + check.stderr);
    await assert.rejects(sign(first, { certify: 'noChanges' }, devRegistry(pki)), (error: unknown) => {
      assert.ok(error instanceof OptionError);
      assert.deepEqual(Object.keys(error.fields), ['signature.certify']);
      return true;
    });
  });

  it('signs at B-LT: the DSS holds every certificate and CRL, pyHanko validates it as PAdES-LT with fetching disabled after the CRL is gone', async () => {
    const crl = await startDevCrl(pki);
    let signed: Uint8Array;
    try {
      signed = await sign(pdf, { level: 'B-LT', reason: 'Archived' }, devRegistry(pki, tsa.url));
    } finally {
      await crl.close();
    }
    // The signature covers its own revision; what follows is the DSS update, which pyHanko classes as LTA updates only.
    const { statuses, stderr } = validatePades(signed, pki.ca.certificatePem, undefined, 'pades-lt');
    const status = only(statuses);
    assert.ok(status.intact && status.valid && status.trusted && status.bottomLine, `${status.summary} ${stderr}`);
    assert.equal(status.coverage, 'ENTIRE_REVISION');
    assert.equal(status.modificationLevel, 'LTA_UPDATES');
    assert.ok(status.timestamp?.intact && status.timestamp.valid && status.timestamp.trusted, status.summary);
    const dss = await dssOf(signed);
    assert.equal(dss.certs, 3, 'the signer, the timestamp authority and the CA');
    assert.equal(dss.crls, 1, "the CA's CRL, for both");
    const read = pdfsig(signed).stdout;
    assert.match(read, /Signature Validation: Signature is Valid\./);
    const check = qpdf(signed, ['--check']);
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /No syntax or stream encoding errors found/);
    // The short-term validation still finds the signature good, the later update harmless.
    assert.ok(only(validatePades(signed, pki.ca.certificatePem).statuses).bottomLine);
  });

  it('signs at B-LTA: a document timestamp over the whole file after the DSS, pyHanko validates it as PAdES-LTA with fetching disabled', async () => {
    const crl = await startDevCrl(pki);
    const signed = await sign(pdf, { level: 'B-LTA', certify: 'noChanges' }, devRegistry(pki, tsa.url)).finally(() => crl.close());
    const { statuses, stderr } = validatePades(signed, pki.ca.certificatePem, undefined, 'pades-lta');
    assert.equal(statuses?.length, 2, `a signature and a document timestamp ${stderr}`);
    const signature = statuses.find((status) => !status.docTimeStamp);
    const archive = statuses.find((status) => status.docTimeStamp);
    assert.ok(signature?.intact && signature.valid && signature.trusted && signature.bottomLine, `${signature?.summary} ${stderr}`);
    assert.equal(signature.coverage, 'ENTIRE_REVISION');
    assert.equal(signature.modificationLevel, 'LTA_UPDATES', 'the DSS and the document timestamp are LTV updates, allowed even by DocMDP noChanges');
    assert.equal(signature.docmdp, 'NO_CHANGES');
    assert.ok(signature.timestamp?.trusted, signature.summary);
    assert.ok(archive?.intact && archive.valid && archive.trusted, archive?.summary);
    assert.equal(archive.coverage, 'ENTIRE_FILE', 'nothing after the document timestamp: its authority was in the DSS already');
    assert.equal(archive.subFilter, '/ETSI.RFC3161');
    assert.ok(Math.abs(Date.parse(archive.time ?? '') - Date.now()) < 10 * 60_000, 'the document timestamp is of now');
    const read = pdfsig(signed).stdout;
    // pdfsig verifies the signature; the document timestamp it reads (the whole file, by the authority) but does not verify: poppler knows no ETSI.RFC3161.
    const [first, second] = read.split(/Signature #2:/);
    assert.match(first ?? '', /Signature Validation: Signature is Valid\./);
    assert.match(second ?? '', /timestamp authority \(NOT TRUSTED\)[\s\S]*Total document signed/);
    const check = qpdf(signed, ['--check']);
    assert.equal(check.status, 0, check.stdout + check.stderr);
    // A B-LT file has no document timestamp: pyHanko's PAdES-LTA validation refuses it.
    const crlAgain = await startDevCrl(pki);
    const longTerm = await sign(pdf, { level: 'B-LT' }, devRegistry(pki, tsa.url)).finally(() => crlAgain.close());
    assert.equal(validatePades(longTerm, pki.ca.certificatePem, undefined, 'pades-lta').statuses, undefined);
  });

  it('a B-LTA copy with one byte of page content changed fails pyHanko (signature and document timestamp) and pdfsig', async () => {
    const crl = await startDevCrl(pki);
    const signed = await sign(pdf, { level: 'B-LTA' }, devRegistry(pki, tsa.url)).finally(() => crl.close());
    const broken = await tampered(signed);
    const statuses = validatePades(broken, pki.ca.certificatePem).statuses ?? assert.fail('pyHanko read the file');
    assert.equal(statuses.length, 2);
    for (const status of statuses) assert.equal(status.intact, false, status.summary);
    assert.doesNotMatch(pdfsig(broken).stdout, /Signature is Valid/);
  });

  it('a B-T file is not PAdES-LT for pyHanko (no DSS: its LTV validation fails), so the check above is not trivially met', async () => {
    const signed = await sign(pdf, { level: 'B-T' }, devRegistry(pki, tsa.url));
    assert.equal(validatePades(signed, pki.ca.certificatePem, undefined, 'pades-lt').statuses, undefined);
  });

  it('a B-LT copy with one byte of page content changed fails pyHanko and pdfsig', async () => {
    const crl = await startDevCrl(pki);
    const signed = await sign(pdf, { level: 'B-LT' }, devRegistry(pki, tsa.url)).finally(() => crl.close());
    const broken = await tampered(signed);
    const statuses = validatePades(broken, pki.ca.certificatePem, undefined, 'pades-lt').statuses;
    assert.ok(statuses === undefined || statuses[0]?.intact === false, JSON.stringify(statuses));
    const status = only(validatePades(broken, pki.ca.certificatePem).statuses);
    assert.equal(status.intact, false, status.summary);
    assert.doesNotMatch(pdfsig(broken).stdout, /Signature is Valid/);
  });

  it("a CA whose CRL cannot be fetched fails B-LT with SignerUnavailableError (502), the CRL's URL not named", async () => {
    await assert.rejects(sign(pdf, { level: 'B-LT' }, devRegistry(pki, tsa.url)), (error: unknown) => {
      assert.ok(error instanceof SignerUnavailableError, String(error));
      assert.equal(toResponse(error).statusCode, 502);
      assert.match(error.message, /CRL of certificate 1 of the chain could not be fetched/);
      assert.ok(!error.message.includes(pki.crlUrl));
      return true;
    });
  });

  it('signs at B-T: the timestamp token is intact and trusted', async () => {
    const signed = await sign(pdf, { level: 'B-T', reason: 'Vertrag – ü, 契約' }, devRegistry(pki, tsa.url));
    const status = assertValid(signed, pki.ca.certificatePem);
    assert.ok(status.timestamp?.intact && status.timestamp.valid && status.timestamp.trusted, status.summary);
    assert.ok(Math.abs(Date.parse(status.timestamp.time) - Date.now()) < 10 * 60_000, 'the timestamp is of now');
  });

  for (const [certify, level] of [
    ['noChanges', 'NO_CHANGES'],
    ['formFilling', 'FILL_FORMS'],
    ['annotations', 'ANNOTATE'],
  ] as const) {
    it(`certifies with DocMDP ${certify}`, async () => {
      const status = assertValid(await sign(pdf, { certify }, devRegistry(pki)), pki.ca.certificatePem);
      assert.equal(status.docmdp, level);
    });
  }

  it('a copy with one byte of page content changed fails pyHanko and pdfsig', async () => {
    const signed = await sign(pdf, { level: 'B-T' }, devRegistry(pki, tsa.url));
    assertValid(signed, pki.ca.certificatePem);
    const broken = await tampered(signed);
    const { statuses } = validatePades(broken, pki.ca.certificatePem);
    const status = only(statuses);
    assert.equal(status.intact, false, status.summary);
    assert.equal(status.bottomLine, false);
    assert.doesNotMatch(pdfsig(broken).stdout, /Signature is Valid/);
  });

  it('a signature that does not chain to the trusted CA is intact but not trusted (the validator checks trust)', async () => {
    const signed = await sign(pdf, {}, devRegistry(pki));
    const other = await loadOrCreateDevPki(tempDir('other-ca-'));
    const status = only(validatePades(signed, other.ca.certificatePem).statuses);
    assert.equal(status.intact, true);
    assert.equal(status.trusted, false);
  });

  it('keeps the development PKI between starts, one CA even when two starts make it at once', async () => {
    const folder = join(tempDir('signing-race-'), 'signing');
    const [first, second] = await Promise.all([loadOrCreateDevPki(folder), loadOrCreateDevPki(folder)]);
    const again = await loadOrCreateDevPki(folder);
    assert.equal(again.created, false);
    assert.equal(again.ca.certificatePem, first.created ? first.ca.certificatePem : second.ca.certificatePem);
    assert.equal(again.signer.certificatePem, first.created ? first.signer.certificatePem : second.signer.certificatePem);
    assert.equal([first, second].filter((made) => made.created).length >= 1, true);
  });

  it('sets a development PKI made before B-LT (its certificates name no CRL) aside and makes one whose certificates do', async () => {
    const parent = tempDir('signing-old-');
    const folder = join(parent, 'signing');
    mkdirSync(folder);
    writeFileSync(join(folder, 'ca.cert.pem'), pki.ca.certificatePem);
    const made = await loadOrCreateDevPki(folder);
    assert.equal(made.created, true);
    assert.match(readFileSync(join(folder, 'crl.url'), 'utf8'), /^http:\/\/127\.0\.0\.1:\d+\/ca\.crl\n$/);
    assert.ok(readdirSync(parent).some((name) => name.startsWith('signing.old-')), 'the old folder is kept aside');
    const material = await (async () => {
      const crl = await startDevCrl(made);
      try {
        return await validationMaterial([[...pemCertificates(made.signer.certificatePem), ...pemCertificates(made.ca.certificatePem)]]);
      } finally {
        await crl.close();
      }
    })();
    assert.equal(material.crls.length, 1);
  });

  it('asks the timestamp authority again when the connection is dropped before an answer (a kept-alive socket closed while idle)', async () => {
    let requests = 0;
    const flaky = createServer((req, res) => {
      requests += 1;
      if (requests === 1) return void req.socket.destroy();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void fetch(tsa.url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: Buffer.concat(chunks) }).then(async (answer) =>
          res.writeHead(answer.status, { 'content-type': 'application/timestamp-reply' }).end(Buffer.from(await answer.arrayBuffer())),
        );
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = flaky.address() as AddressInfo;
      const signed = await sign(pdf, { level: 'B-T' }, devRegistry(pki, `http://127.0.0.1:${port}/`));
      assert.ok(assertValid(signed, pki.ca.certificatePem).timestamp?.trusted);
      assert.equal(requests, 2);
    } finally {
      await new Promise<void>((resolve) => flaky.close(() => resolve()));
    }
  });

  it('a timestamp authority that cannot be reached is TimestampAuthorityError (503), nothing signed', async () => {
    const signers = devRegistry(pki, `http://127.0.0.1:${await closedPort()}/`);
    await assert.rejects(sign(pdf, { level: 'B-T' }, signers), (error: unknown) => {
      assert.ok(error instanceof TimestampAuthorityError);
      const answer = toResponse(error);
      assert.equal(answer.statusCode, 503);
      assert.equal(JSON.parse(String(answer.body)).code, 'render.timestamp_unavailable');
      return true;
    });
  });
});

describe('the KMS signer (moto server)', () => {
  let moto: { endpoint: string; stop: () => Promise<void> };
  let pki: DevPki;
  let kms: KMSClient;
  let ssm: SSMClient;
  let secrets: SecretsManagerClient;
  let tsa: { url: string; close: () => Promise<void> };
  let pdf: Uint8Array;
  const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };

  before(async () => {
    moto = await startMoto();
    kms = new KMSClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials });
    ssm = new SSMClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials });
    secrets = new SecretsManagerClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials });
    pki = await loadOrCreateDevPki(tempDir('signing-kms-'));
    const tsaChain = [...pemCertificates(pki.tsa.certificatePem), ...pemCertificates(pki.ca.certificatePem)];
    tsa = await startLocalTsa(localSigner(pki.tsa.privateKeyPem, tsaChain));
    pdf = await contract();
  });
  after(async () => {
    await tsa.close();
    await moto.stop();
  });

  /** A KMS key of `spec`, its certificate issued by the development CA for the public key KMS gives, the chain PEM in SSM. */
  async function kmsKey(spec: 'RSA_2048', parameter: string): Promise<string> {
    const created = await kms.send(new CreateKeyCommand({ KeySpec: spec, KeyUsage: 'SIGN_VERIFY' }));
    const keyId = created.KeyMetadata?.Arn ?? assert.fail('no key');
    const { PublicKey } = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
    const chain = await chainForKey(pki, PublicKey as Uint8Array, `KMS ${spec} signer (NOT TRUSTED)`);
    await ssm.send(new PutParameterCommand({ Name: parameter, Value: chain, Type: 'String', Overwrite: true }));
    return keyId;
  }

  const registry = (keyId: string, parameter: string, timestampUrl?: string) =>
    signerRegistry(
      { signers: { legal: { kind: 'kms', keyId, chain: `ssm:${parameter}` } }, ...(timestampUrl ? { timestampUrl } : {}) },
      { kms: () => kms, ssm: () => ssm, s3: () => createS3Client({ region: 'us-east-1' }), secrets: () => secrets },
    );

  it('a key KMS does not have is SignerUnavailableError (502) naming the signer and the KMS error, never the key', async () => {
    const parameter = '/docrender/signers/gone/chain';
    const real = await kmsKey('RSA_2048', parameter);
    const keyId = real.replace(/key\/.*$/, `key/${crypto.randomUUID()}`);
    await assert.rejects(sign(pdf, { signer: 'legal' }, registry(keyId, parameter)), (error: unknown) => {
      assert.ok(error instanceof SignerUnavailableError);
      const answer = toResponse(error);
      assert.equal(answer.statusCode, 502);
      assert.equal(JSON.parse(String(answer.body)).code, 'render.signer_unavailable');
      assert.match(error.message, /"legal".*NotFoundException/);
      const keyUuid = keyId.split('/').pop() as string;
      assert.ok(!JSON.stringify({ message: error.message, stack: error.stack, cause: String(error.cause) }).includes(keyUuid), 'the key id is not in the error');
      return true;
    });
  });

  /** A PKCS#12 of the development signer's key and chain, as a CA hands one out, written by OpenSSL with `password`. */
  function pkcs12Of(password: string, key = { privateKeyPem: pki.signer.privateKeyPem, certificatePem: pki.signer.certificatePem }): string {
    const dir = tempDir('p12-');
    writeFileSync(join(dir, 'key.pem'), key.privateKeyPem);
    writeFileSync(join(dir, 'cert.pem'), key.certificatePem);
    writeFileSync(join(dir, 'ca.pem'), pki.ca.certificatePem);
    const made = spawnSync('openssl', ['pkcs12', '-export', '-inkey', join(dir, 'key.pem'), '-in', join(dir, 'cert.pem'), '-certfile', join(dir, 'ca.pem'), '-out', join(dir, 'signer.p12'), '-passout', 'env:P12_PASSWORD'], {
      encoding: 'utf8',
      env: { ...process.env, P12_PASSWORD: password },
    });
    assert.equal(made.status, 0, made.stderr);
    return readFileSync(join(dir, 'signer.p12')).toString('base64');
  }

  const pkcs12Registry = (secretId: string, timestampUrl?: string) =>
    signerRegistry({ signers: { legal: { kind: 'pkcs12', secret: secretId } }, ...(timestampUrl ? { timestampUrl } : {}) }, {
      kms: () => kms,
      ssm: () => ssm,
      s3: () => createS3Client({ region: 'us-east-1' }),
      secrets: () => secrets,
    });

  it('signs at B-T with a PKCS#12 and its password from Secrets Manager, validated by pyHanko and pdfsig', async () => {
    const password = 'Pässwort-from-the-CA-77';
    const created = await secrets.send(new CreateSecretCommand({ Name: 'docrender/signers/p12', SecretString: JSON.stringify({ pkcs12: pkcs12Of(password), password }) }));
    const signed = await sign(pdf, { signer: 'legal', level: 'B-T' }, pkcs12Registry(created.ARN ?? assert.fail('no secret'), tsa.url));
    const status = assertValid(signed, pki.ca.certificatePem);
    assert.ok(status.timestamp?.trusted, status.summary);
  });

  it('signs with an ECC NIST P-384 key from a PKCS#12 with SHA-384 throughout, validated by pyHanko and pdfsig', async () => {
    const dir = tempDir('p384-');
    const made = spawnSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384', '-out', join(dir, 'key.pem')], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const spki = spawnSync('openssl', ['pkey', '-in', join(dir, 'key.pem'), '-pubout', '-outform', 'DER']);
    assert.equal(spki.status, 0);
    const chainPem = await chainForKey(pki, new Uint8Array(spki.stdout), 'PKCS#12 P-384 signer (NOT TRUSTED)');
    const password = 'p384-password-1';
    const p12 = pkcs12Of(password, { privateKeyPem: readFileSync(join(dir, 'key.pem'), 'utf8'), certificatePem: chainPem.split(/(?<=-----END CERTIFICATE-----\n)/)[0] ?? '' });
    const created = await secrets.send(new CreateSecretCommand({ Name: 'docrender/signers/p384', SecretString: JSON.stringify({ pkcs12: p12, password }) }));
    const signed = await sign(pdf, { signer: 'legal', level: 'B-T' }, pkcs12Registry(created.ARN ?? assert.fail('no secret'), tsa.url));
    const status = assertValid(signed, pki.ca.certificatePem);
    assert.match(status.signer, /P-384 signer/);
    assert.ok(status.timestamp?.trusted, status.summary);
    const read = pdfsig(signed).stdout;
    assert.match(read, /Signing Hash Algorithm: SHA-384/);
  });

  it('a PKCS#12 whose password is wrong is SignerUnavailableError (502), the password in no message', async () => {
    const password = 'the-wrong-one-4411';
    const created = await secrets.send(new CreateSecretCommand({ Name: 'docrender/signers/p12-wrong', SecretString: JSON.stringify({ pkcs12: pkcs12Of('the-right-one-9'), password }) }));
    await assert.rejects(sign(pdf, { signer: 'legal' }, pkcs12Registry(created.ARN ?? assert.fail('no secret'))), (error: unknown) => {
      assert.ok(error instanceof SignerUnavailableError);
      assert.match(error.message, /PKCS#12 could not be opened/);
      assert.ok(!`${error.message} ${error.stack} ${String(error.cause)}`.includes(password));
      return true;
    });
  });

  it('a chain parameter that does not exist is SignerUnavailableError (502), the parameter not named', async () => {
    const keyId = await kmsKey('RSA_2048', '/docrender/signers/present/chain');
    await assert.rejects(sign(pdf, { signer: 'legal' }, registry(keyId, '/docrender/signers/missing/chain')), (error: unknown) => {
      assert.ok(error instanceof SignerUnavailableError);
      assert.match(error.message, /ParameterNotFound/);
      assert.doesNotMatch(error.message, /missing/);
      return true;
    });
  });
});
