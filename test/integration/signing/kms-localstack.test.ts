/**
 * The KMS signer against LocalStack's KMS, which signs a `MessageType:
 * DIGEST` request as AWS does (its models.py hands the digest to
 * cryptography as Prehashed; moto 5.2 hashes it again, getmoto/moto#10202):
 * RSA, ECC NIST P-256 and P-384 keys sign a contract at B-LT and a
 * certificate signing request, the chain read from LocalStack's S3.
 * pyHanko (PAdES-LT, fetching disabled) and pdfsig validate the files, openssl
 * the requests. Runs in `npm run test:localstack` (TEST_AWS_ENDPOINT set);
 * skipped without it.
 */
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateKeyCommand, GetPublicKeyCommand, KMSClient, ScheduleKeyDeletionCommand } from '@aws-sdk/client-kms';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { signStep } from '../../../lib/finishing/steps/sign/sign.js';
import { loadOrCreateDevPki, startDevCrl, type DevPki } from '../../../lib/signing/dev-pki.js';
import { kmsCertificateRequest } from '../../../lib/signing/kms-csr.js';
import { localSigner } from '../../../lib/signing/local-signer.js';
import { pemCertificates } from '../../../lib/signing/signer.js';
import { signerRegistry } from '../../../lib/signing/signers.js';
import { startLocalTsa } from '../../../lib/signing/timestamp.js';
import { externalAwsEndpoint, uniqueStage } from '../../helpers/external-aws.js';
import { chainForKey, pdfsig, validatePades } from '../../helpers/pades.js';
import { tempDir } from '../../helpers/temp-dir.js';

const endpoint = externalAwsEndpoint();
const SPECS = [
  ['RSA_2048', 'SHA-256'],
  ['ECC_NIST_P256', 'SHA-256'],
  ['ECC_NIST_P384', 'SHA-384'],
] as const;

describe('the KMS signer (LocalStack KMS, MessageType DIGEST)', { skip: endpoint ? false : 'needs TEST_AWS_ENDPOINT (npm run test:localstack)' }, () => {
  const config = { region: 'us-east-1', endpoint: endpoint ?? '', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, forcePathStyle: true };
  const bucket = `docrender-${uniqueStage()}-signing`;
  const keys: string[] = [];
  const objects: string[] = [];
  let kms: KMSClient;
  let s3: S3Client;
  let pki: DevPki;
  let tsa: { url: string; close: () => Promise<void> };
  let crl: { close: () => Promise<void> };
  let pdf: Uint8Array;

  before(async () => {
    kms = new KMSClient(config);
    s3 = new S3Client(config);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    pki = await loadOrCreateDevPki(tempDir('signing-localstack-'));
    crl = await startDevCrl(pki);
    tsa = await startLocalTsa(localSigner(pki.tsa.privateKeyPem, [...pemCertificates(pki.tsa.certificatePem), ...pemCertificates(pki.ca.certificatePem)]));
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([595, 842]).drawText('Signed with a key that never left KMS.', { font, size: 16, x: 72, y: 700 });
    pdf = await doc.save({ useObjectStreams: false });
  });
  after(async () => {
    await tsa?.close();
    await crl?.close();
    for (const key of objects) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    await s3?.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    for (const keyId of keys) await kms.send(new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: 7 })).catch(() => undefined);
  });

  async function createKey(spec: (typeof SPECS)[number][0]): Promise<string> {
    const created = await kms.send(new CreateKeyCommand({ KeySpec: spec, KeyUsage: 'SIGN_VERIFY' }));
    const keyId = created.KeyMetadata?.Arn ?? assert.fail('no key');
    keys.push(keyId);
    return keyId;
  }

  for (const [spec, hash] of SPECS) {
    it(`signs with a ${spec} key at B-LT (${hash}), the chain from S3: pyHanko PAdES-LT and pdfsig find it valid`, async () => {
      const keyId = await createKey(spec);
      const { PublicKey } = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
      const key = `chains/${spec}.pem`;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: await chainForKey(pki, PublicKey as Uint8Array, `KMS ${spec} signer (NOT TRUSTED)`) }));
      objects.push(key);
      const signers = signerRegistry(
        { signers: { legal: { kind: 'kms', keyId, chain: `s3://${bucket}/${key}` } }, timestampUrl: tsa.url },
        { kms: () => kms, s3: () => s3, ssm: () => assert.fail('no SSM'), secrets: () => assert.fail('no Secrets Manager') },
      );
      const signed = await finishPdf(pdf, {
        sign: signStep({ signer: 'legal', level: 'B-LT', reason: 'Approved' }, signers, () => assert.fail('no text'), () => new Date()),
      }, unboundedBudget());
      const { statuses, stderr } = validatePades(signed, pki.ca.certificatePem, undefined, 'pades-lt');
      const [status] = statuses ?? [];
      assert.ok(status?.intact && status.valid && status.trusted && status.bottomLine, `${status?.summary} ${stderr}`);
      assert.match(status.signer, new RegExp(`KMS ${spec} signer`));
      assert.equal(status.modificationLevel, 'LTA_UPDATES');
      const read = pdfsig(signed).stdout;
      assert.match(read, /Signature Validation: Signature is Valid\./);
      assert.match(read, new RegExp(`Signing Hash Algorithm: ${hash}`));
    });

    it(`makes a certificate signing request for a ${spec} key, signed by KMS, that openssl verifies`, async () => {
      const pem = await kmsCertificateRequest(kms, await createKey(spec), 'CN=Example GmbH contracts,O=Example GmbH,C=DE');
      const file = join(tempDir('csr-'), 'request.pem');
      writeFileSync(file, pem);
      const checked = spawnSync('openssl', ['req', '-in', file, '-noout', '-verify', '-subject'], { encoding: 'utf8' });
      assert.equal(checked.status, 0, checked.stderr);
      assert.match(checked.stdout + checked.stderr, /verify OK/i);
      assert.match(checked.stdout, /CN\s*=\s*Example GmbH contracts/);
    });
  }
});
