/**
 * CPU spent after a finishing's 504 (issue 45): a caller's PDF whose
 * compression takes several times the request's budget (80 pages, each a
 * 1,400 × 1,400 image that compress decodes, downsamples and re-encodes) is finished within a 1 s budget, as `/v1/pdf/process` would;
 * the script reports when the 504 came and how much CPU the process spent in
 * the 8 s after it (the work that went on after the answer). Run it on two
 * commits to compare:
 *
 *   npx tsx bench/deadline-cpu.ts
 *
 * Before the budget was checked in the steps' loops, the step raced a timer
 * and went on after the 504, spending the CPU the answer had given up on; with
 * the checks it stops at the deadline.
 */
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { startDeadline } from '../lib/deadline.js';
import { documentBudget } from '../lib/budget/document-budget.js';
import { finishResult } from '../lib/document-renderer.js';
import { compressStep } from '../lib/finishing/steps/compress/compress.js';

const BUDGET_MS = 1_000;
const PAGES = 80;
const EDGE = 1_400;

async function slowToCompress(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let page = 0; page < PAGES; page += 1) {
    // A gradient: small as Flate, as costly as any image to decode and re-encode.
    const pixels = new Uint8Array(EDGE * EDGE * 3);
    for (let i = 0; i < pixels.length; i += 1) pixels[i] = ((i % (EDGE * 3)) / 12 + page * 7) & 0xff;
    const image = doc.context.register(
      doc.context.stream(deflateSync(pixels, { level: 1 }), { Filter: 'FlateDecode', Type: 'XObject', Subtype: 'Image', Width: EDGE, Height: EDGE, ColorSpace: 'DeviceRGB', BitsPerComponent: 8 }),
    );
    const p = doc.addPage([200, 200]);
    p.node.set(PDFName.of('Resources'), doc.context.obj({ XObject: { Im: image } }));
    p.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream('q 200 0 0 200 0 0 cm /Im Do Q')));
  }
  return doc.save();
}

const pdf = await slowToCompress();
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const started = Date.now();
const deadline = startDeadline(BUDGET_MS);
const budget = documentBudget({ at: deadline.at, budgetMs: BUDGET_MS });
const result = { body: Buffer.from(pdf), contentType: 'application/pdf' as const, output: 'PDF' as const, timings: {} };
let outcome = 'finished';
try {
  await finishResult(result, { compress: compressStep({ imageQuality: 80, maxImageDpi: 72, grayscale: false }) }, deadline, budget);
} catch (error) {
  outcome = (error as Error).name;
}
const answeredAt = Date.now() - started;
const cpuAtAnswer = cpuMs();
await new Promise((resolve) => setTimeout(resolve, 8_000));
console.log(
  JSON.stringify({ pdfBytes: pdf.length, budgetMs: BUDGET_MS, outcome, answeredAfterMs: answeredAt, cpuAfterAnswerMs: Math.round(cpuMs() - cpuAtAnswer) }),
);
process.exit(0);
