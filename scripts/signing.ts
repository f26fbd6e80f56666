/**
 * `npm run -s signing -- csr --key-id <arn> --subject "CN=…,O=…,C=…"`: prints
 * a certificate signing request (PEM) for an AWS KMS key, signed by KMS, for
 * a CA to issue the certificate of a `kms` signer (docs/finishing.md, "Sign and seal").
 * Uses the normal AWS credential chain and region.
 */
import { KMSClient } from '@aws-sdk/client-kms';
import { parseArgs } from 'node:util';
import { kmsCertificateRequest } from '../lib/signing/kms-csr.js';

const USAGE = 'Usage: npm run -s signing -- csr --key-id <KMS key ARN> --subject "CN=Example GmbH,O=Example GmbH,C=DE" [--region R]\n';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { 'key-id': { type: 'string' }, subject: { type: 'string' }, region: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  allowPositionals: true,
  strict: true,
});
if (values.help || positionals[0] !== 'csr' || !values['key-id'] || !values.subject) {
  process.stderr.write(USAGE);
  process.exit(values.help ? 0 : 2);
}
const kms = new KMSClient(values.region ? { region: values.region } : {});
try {
  process.stdout.write(await kmsCertificateRequest(kms, values['key-id'], values.subject));
} catch (error) {
  process.stderr.write(`signing csr failed: ${(error as Error).name}: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  kms.destroy();
}
