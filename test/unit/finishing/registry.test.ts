import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName, PDFString } from '@cantoo/pdf-lib';
import * as v from 'valibot';
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
import { entriesOf, FINISHING_ENTRIES, finishingRules, optionGroupsOf, planFinishing } from '../../../lib/finishing/pipeline/finishing-options.js';
import { defineStep } from '../../../lib/finishing/pipeline/step-definition.js';
import { requestJsonSchema } from '../../../lib/openapi/request-schemas.js';
import { PdfRequestSchema } from '../../../lib/schemas/render-requests.js';
import type { SignerRegistry } from '../../../lib/signing/signers.js';
import { closedObject } from '../../../lib/validation/closed-object.js';
import { documented } from '../../../lib/validation/field-builders.js';
import { issuesToFields } from '../../../lib/validation/parse.js';
import { requestOptionPaths, type Doc } from '../../helpers/manual-options.js';

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

/**
 * A throwaway step, written as a new step's module would be: its option
 * (with a rule against protection, and refused on an existing PDF), how the
 * option becomes its plan, and how it runs.
 */
const marker = defineStep({
  name: 'marker',
  options: {
    entries: {
      marker: documented(v.nullish(closedObject({ key: v.pipe(v.string('Must be a string'), v.regex(/^[A-Z][a-z]+$/, 'Must be a name')) })), {
        description: 'Marks the catalog under this key.',
      }),
    },
    conflicts: [{ when: [{ field: 'marker', given: true }, { field: 'protection', given: true }], message: 'marker and protection cannot be combined' }],
    refused: { existing: { marker: { message: 'Does not apply to an existing PDF' } } },
    plan: ({ marker: asked }) => (asked != null ? { key: asked.key } : undefined),
  },
  build: async ({ key }: { key: string }) => ({ edit: (doc: PDFDocument) => doc.catalog.set(PDFName.of(key), PDFString.of('marked')) }),
});

/** The registry with the throwaway step after the stamp: the one line a new step adds. */
const withMarker = () => {
  const stampAt = FINISHING_REGISTRY.findIndex((definition) => definition.name === 'stamp');
  return [...FINISHING_REGISTRY.slice(0, stampAt + 1), marker, ...FINISHING_REGISTRY.slice(stampAt + 1)];
};

const fieldsOf = (schema: v.GenericSchema, input: unknown) => {
  const result = v.safeParse(schema, input, { abortEarly: false });
  return result.success ? {} : issuesToFields(result.issues);
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
    // Prepare
    const registry = withMarker() as readonly StepDefinition<string, never, unknown>[];
    const plans = planFinishing({ marker: { key: 'Marked' } }, {}, optionGroupsOf(registry)) as StepPlans;

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

  it("gives a new step's option to the pdf schema, with its rule and where it is refused, from its definition alone", () => {
    // Prepare: a pdf object's schema as the request schemas derive it, from the registry with the step.
    const groups = optionGroupsOf(withMarker());
    const render = v.pipe(closedObject(entriesOf(groups)), finishingRules('render', groups));
    const existing = v.pipe(closedObject(entriesOf(groups)), finishingRules('existing', groups));

    // Act / Assess
    assert.deepEqual(fieldsOf(render, { marker: { key: 'Marked' } }), {});
    assert.deepEqual(Object.keys(fieldsOf(render, { marker: { key: 'marked' } })), ['marker.key']);
    assert.deepEqual(fieldsOf(render, { marker: { key: 'Marked' }, protection: { userPassword: 'u' } }), {
      marker: 'marker and protection cannot be combined',
      protection: 'marker and protection cannot be combined',
    });
    assert.deepEqual(fieldsOf(existing, { marker: { key: 'Marked' } }), { marker: 'Does not apply to an existing PDF' });
    assert.deepEqual(Object.keys(fieldsOf(render, { nothing: true })), ['nothing'], 'an option no step defines is unknown');
  });

  it("states a new step's option in the OpenAPI document, where the manual check and the studio's form read it", () => {
    // Prepare
    const groups = optionGroupsOf(withMarker());
    const pdf = v.pipe(closedObject(entriesOf(groups)), finishingRules('render', groups));

    // Act
    const converted = requestJsonSchema(closedObject({ pdf: v.nullish(pdf) })) as Doc['components']['schemas'][string] & Record<string, unknown>;
    const doc: Doc = { paths: { '/v1/pdf': { post: { requestBody: { content: { 'application/json': { schema: converted } } } } } }, components: { schemas: {} } };

    // Assess: the option, its description and its rule are in the document; the manual check lists it to be documented.
    const text = JSON.stringify(converted);
    assert.match(text, /"marker":\{"anyOf":\[\{"type":"object","properties":\{"key":\{"type":"string","pattern":"\^\[A-Z\]\[a-z\]\+\$"/);
    assert.match(text, /Marks the catalog under this key/);
    assert.match(text, /"not":\{"allOf":\[\{"required":\["marker"\]/);
    assert.ok(requestOptionPaths(doc).some((option) => option.path.join('.') === 'pdf.marker.key'));
  });

  it('derives the product\'s pdf schema from the registry: every step\'s options, and only theirs, with their rules', () => {
    // Every registered step's option is in the request schema, and the rules between them hold there.
    for (const key of Object.keys(FINISHING_ENTRIES)) {
      assert.notDeepEqual(Object.keys(fieldsOf(PdfRequestSchema, { page: { html: 'PHA+eDwvcD4=' }, pdf: { [key]: 12 } })), [], `pdf.${key} is checked`);
    }
    assert.deepEqual(Object.keys(fieldsOf(PdfRequestSchema, { page: { html: 'PHA+eDwvcD4=' }, pdf: { signature: {}, protection: { userPassword: 'u' } } })), ['pdf.signature', 'pdf.protection']);
  });

  it('refuses two definitions that own the same option', () => {
    const twice = optionGroupsOf([marker, { ...marker, name: 'marker2' }]);
    assert.throws(() => entriesOf(twice), /Two finishing definitions own pdf.marker/);
  });

  it('refuses at compile time a definition that cannot run or that says nothing of its options', () => {
    // @ts-expect-error a step without `build` is no step: the registry's type requires how it runs.
    const notRunnable: StepDefinition<'nothing', { a: number }> = { name: 'nothing', options: { notFromRequest: 'a test' } };
    // @ts-expect-error a step must say how a request asks for it, or why none does.
    const notPlanned: StepDefinition<'nothing', { a: number }> = { name: 'nothing', build: async () => ({ edit: () => undefined }) };
    assert.equal(notRunnable.name, notPlanned.name);
  });
});
