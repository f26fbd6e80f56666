/**
 * `npm run bench:signing`: what the sign step adds to a finished 1-page PDF,
 * without Chromium (the print is the same with or without it): the step at
 * B-B with the development (software) key against the same PDF unsigned, in
 * the same rounds, alternating; and, stated apart, one KMS `Sign` round trip
 * and the whole step with a KMS key, against moto's server on loopback (on
 * AWS that round trip is network time to KMS in the region, typically tens of
 * milliseconds, not measured here).
 */
import { unboundedBudget } from '../lib/budget/document-budget.js';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { finishPdf } from '../lib/finishing/pipeline/finish-pdf.js';
import { signStep } from '../lib/finishing/steps/sign/sign.js';
import { loadOrCreateDevPki } from '../lib/signing/dev-pki.js';
import { signerRegistry } from '../lib/signing/signers.js';
import { tempDir } from '../test/helpers/temp-dir.js';
import { measureKmsRoundTrip } from './kms-round-trip.js';
import { summarize } from './stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const noText = async (): Promise<Uint8Array> => new Uint8Array();

const doc = await PDFDocument.create();
doc.addPage([595, 842]).drawText('A one-page contract.', { font: await doc.embedFont(StandardFonts.Helvetica), size: 14, x: 72, y: 760 });
const pdf = await doc.save({ useObjectStreams: false });
const pki = await loadOrCreateDevPki(tempDir('bench-signing-'));
const noClients = { kms: () => { throw new Error('no KMS'); }, ssm: () => { throw new Error('no SSM'); }, s3: () => { throw new Error('no S3'); }, secrets: () => { throw new Error('no Secrets Manager'); } };
const dev = signerRegistry({ signers: { default: { kind: 'local', folder: pki.folder } } }, noClients);
const step = signStep({ signer: 'default', level: 'B-B' }, dev, noText, () => new Date());

const time = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
const plain: number[] = [];
const signed: number[] = [];
for (let round = -5; round < ROUNDS; round += 1) {
  const pair = round % 2 === 0 ? [['plain', () => finishPdf(pdf, {}, unboundedBudget())], ['signed', () => finishPdf(pdf, { sign: step }, unboundedBudget())]] as const : [['signed', () => finishPdf(pdf, { sign: step }, unboundedBudget())], ['plain', () => finishPdf(pdf, {}, unboundedBudget())]] as const;
  for (const [name, work] of pair) {
    const ms = await time(work);
    if (round >= 0) (name === 'plain' ? plain : signed).push(ms);
  }
}
const row = (title: string, values: number[]) => {
  const s = summarize(values);
  console.log(`${title.padEnd(52)} median ${s.median.toFixed(2)} ms  p90 ${s.p90.toFixed(2)} ms  (n=${s.n})`);
};
console.log(`sign step on a ${pdf.length}-byte 1-page PDF, ${ROUNDS} rounds alternating:`);
row('finishing, no step (the plain PDF as it is)', plain);
row('sign step, B-B, development RSA-2048 key', signed);

const trips = await measureKmsRoundTrip(ROUNDS);
console.log(`${'KMS Sign round trip (moto on loopback, RSA-2048)'.padEnd(52)} median ${trips.median.toFixed(2)} ms  p90 ${trips.p90.toFixed(2)} ms  (n=${trips.n})`);
