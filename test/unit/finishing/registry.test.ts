import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName, PDFString } from '@cantoo/pdf-lib';
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import {
  FINISHING_ORDER,
  FINISHING_REGISTRY,
  finishingSteps,
  wantsFinishing,
  type StepContext,
  type StepDefinition,
  type StepPlans,
} from '../../../lib/finishing/pipeline/registry.js';
import type { SignerRegistry } from '../../../lib/signing/signers.js';

const context: StepContext = {
  now: new Date('2026-01-02T03:04:05Z'),
  facts: {},
  drawText: async () => new Uint8Array(),
  printBand: async () => new Uint8Array(),
  loadTemplates: async () => () => '',
  signers: { signer: async () => Promise.reject(new Error('not signing in this test')) } as unknown as SignerRegistry,
};

/** A plan for every registered step, as the plan builder (or the document renderer) makes them. */
const ONE_PLAN_EACH: Required<StepPlans> = {
  assemble: { first: {}, others: [], outline: false },
  pages: { order: '1' },
  form: { flatten: 'all' },
  bands: { bands: { sectionHeadings: 'h1', footer: { name: 'footer', height: 20, pages: '', main: { kind: 'html', html: '<p>x</p>' } } }, facts: { title: '', url: '', headings: [] } },
  stamp: { mark: { text: 'DRAFT', fontSize: 40, color: '#000000' }, opacity: 0.5, rotation: 0, position: 'center', layer: 'over', pages: '' },
  archive: { metadata: { title: 'T' }, pdfua: false },
  attach: [{ name: 'a.txt', content: Buffer.from('a'), mimeType: 'text/plain', relationship: 'Data' }],
  compress: { imageQuality: 80, maxImageDpi: 150, grayscale: false },
  protect: {
    userPassword: 'u',
    permissions: { print: 'highResolution', modify: true, copy: true, annotate: true, fillForms: true, accessibility: true, assemble: true },
  },
  sign: { signer: 'default', level: 'B-B' },
};

const onePage = async () => {
  const doc = await PDFDocument.create();
  doc.addPage([100, 100]);
  return doc.save();
};

/** A throwaway step, as a new step's module would define it: one definition, its plan's type taken from `build`. */
const marker: StepDefinition<'marker', { key: string }> = {
  name: 'marker',
  build: async ({ key }) => ({ edit: (doc) => doc.catalog.set(PDFName.of(key), PDFString.of('marked')) }),
};

describe('the finishing registry', () => {
  it('is the only list: the order finishPdf runs in is the registry\'s', () => {
    assert.deepEqual(FINISHING_ORDER, FINISHING_REGISTRY.map((definition) => definition.name));
    assert.deepEqual(FINISHING_ORDER, ['assemble', 'pages', 'form', 'bands', 'stamp', 'archive', 'attach', 'compress', 'protect', 'sign']);
  });

  it('runs every registered step whose plan alone is given: none can be forgotten in "needs finishing" or in the steps', async () => {
    for (const name of FINISHING_ORDER) {
      // Prepare
      const plans: StepPlans = { [name]: ONE_PLAN_EACH[name] };

      // Act
      const steps = await finishingSteps(plans, context);

      // Assess
      assert.equal(wantsFinishing(plans), true, `a plan with only ${name} needs finishing`);
      assert.deepEqual(Object.keys(steps), [name], `a plan with only ${name} runs ${name}`);
    }
  });

  it('skips a step whose plan asks for no work, and needs no finishing for an empty plan', async () => {
    assert.equal(wantsFinishing({ attach: [] }), false);
    assert.deepEqual(await finishingSteps({ attach: [] }, context), {});
    assert.equal(wantsFinishing({}), false);
  });

  it('takes a new step with one definition and one registry line: planned, needed, built and run in its place', async () => {
    // Prepare: the registry with the throwaway step after the stamp.
    const stampAt = FINISHING_REGISTRY.findIndex((definition) => definition.name === 'stamp');
    const registry = [...FINISHING_REGISTRY.slice(0, stampAt + 1), marker, ...FINISHING_REGISTRY.slice(stampAt + 1)] as readonly StepDefinition<string, never>[];
    const plans = { marker: { key: 'Marked' } } as StepPlans;

    // Act
    const needed = wantsFinishing(plans, registry);
    const steps = await finishingSteps(plans, context, registry);
    const out = await finishPdf(await onePage(), steps, unboundedBudget(), registry.map((definition) => definition.name));

    // Assess
    assert.equal(needed, true);
    assert.deepEqual(Object.keys(steps), ['marker']);
    const catalog = (await PDFDocument.load(out)).catalog;
    assert.equal(catalog.lookup(PDFName.of('Marked'), PDFString).decodeText(), 'marked');
  });

  it('refuses at compile time a definition that cannot run', () => {
    // @ts-expect-error a step without `build` is no step: the registry's type requires how it runs.
    const notRunnable: StepDefinition<'nothing', { a: number }> = { name: 'nothing' };
    assert.equal(notRunnable.name, 'nothing');
  });
});
