import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import { bandPrintFailure, loadBandTemplates, withFinishing } from '../../../lib/document-renderer.js';
import { RenderTimeoutError, ValidationError } from '../../../lib/errors.js';
import { BandPrintRefusedError } from '../../../lib/finishing/pipeline/errors.js';
import { bandsStep, type BandPrinter } from '../../../lib/finishing/steps/bands/bands.js';
import type { BandPlan, BandsPlan } from '../../../lib/finishing/steps/bands/bands-plan.js';
import { OptionError } from '../../../lib/pdf/errors.js';
import { buildDocumentPlan } from '../../../lib/plan/build-plan.js';
import { renderForRequest } from '../../../lib/plan/request-errors.js';
import { RendererBusyError } from '../../../lib/render/admission.js';
import { PlanStepError } from '../../../lib/render/errors.js';
import type { Renderer } from '../../../lib/render/types.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

async function onePage(size: [number, number] = [612, 792]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.addPage(size);
  return document.save();
}

const band = (name: BandPlan['name'], height = 36): BandPlan => ({ name, height, pages: '', main: { kind: 'html', html: '<p class="pageNumber"></p>' } });
const facts = { title: '', url: '', headings: [] };
const noTemplates = async () => {
  throw new Error('no band here is a template');
};

/** Lays `plan`'s bands on a one-page document with `print` as the band printer: what the step throws. */
async function layWith(plan: BandsPlan, print: BandPrinter): Promise<unknown> {
  const document = await PDFDocument.load(await onePage());
  try {
    await bandsStep(plan, facts, print, () => new Date(0), noTemplates).edit(document, unboundedBudget());
  } catch (error) {
    return error;
  }
  return undefined;
}

/** A renderer that prints a blank page for a body and answers every band document's print with `band`. */
function fakeRenderer(band: () => never): Renderer {
  return {
    render: async (plan) => {
      if (JSON.stringify(plan).includes('__docrenderBandsReady')) band();
      return { body: Buffer.from(await onePage()), contentType: 'application/pdf', output: 'PDF', timings: {} };
    },
    anticipate: () => undefined,
    warm: async () => undefined,
    afterAnswer: async () => undefined,
    close: async () => undefined,
  };
}

describe('bands › what a failed band is named by', () => {
  it("names the band's option (header), not a request path, when its own HTML made the print fail", async () => {
    // Prepare
    const refusing: BandPrinter = async () => {
      throw new BandPrintRefusedError('The band script threw');
    };

    // Act
    const error = await layWith({ header: band('header'), sectionHeadings: 'h1' }, refusing);

    // Assess
    assert.ok(error instanceof OptionError, String(error));
    assert.deepEqual(error.fields, { header: 'The band could not be printed: The band script threw' });
  });

  it('lets a print that ran out of time through as the same timeout, not a 400', async () => {
    // Prepare
    const timeout = new RenderTimeoutError(1000);
    const late: BandPrinter = async () => {
      throw timeout;
    };

    // Act
    const error = await layWith({ footer: band('footer'), sectionHeadings: 'h1' }, late);

    // Assess
    assert.equal(error, timeout);
  });

  it("names a band taller than the page by its option's height, and both bands when together they are", async () => {
    // Act
    const tall = await layWith({ footer: band('footer', 800), sectionHeadings: 'h1' }, async () => new Uint8Array());
    const together = await layWith({ header: band('header', 400), footer: band('footer', 400), sectionHeadings: 'h1' }, async () => new Uint8Array());

    // Assess
    assert.ok(tall instanceof OptionError);
    assert.deepEqual(Object.keys(tall.fields), ['footer.height']);
    assert.ok(together instanceof OptionError);
    assert.deepEqual(Object.keys(together.fields), ['header.height', 'footer.height']);
  });
});

describe("document renderer › the bands step's printer and templates", () => {
  it("makes a render's caller error a refused band print, and leaves timeouts and the service's failures as they are", () => {
    // Prepare
    const refused = new PlanStepError('waitForFunction', 'Waiting failed: the script threw');
    const timeout = new RenderTimeoutError(1000);
    const busy = new RendererBusyError('no session');

    // Act
    const asRefused = bandPrintFailure(refused);

    // Assess
    assert.ok(asRefused instanceof BandPrintRefusedError);
    assert.equal(asRefused.reason, 'Waiting failed: the script threw');
    assert.equal(asRefused.cause, refused);
    assert.equal(bandPrintFailure(timeout), timeout);
    assert.equal(bandPrintFailure(busy), busy);
  });

  it("names a band's template that fails by its path inside the pdf options", async () => {
    // Prepare
    const render = await loadBandTemplates();

    // Act
    const attempt = () => render(b64('{{#each}}'), {}, { field: 'footer.evenPages.htmlTemplate' });

    // Assess
    assert.throws(attempt, (error: unknown) => error instanceof OptionError && Object.keys(error.fields).join() === 'footer.evenPages.htmlTemplate');
  });
});

describe('the edge › a band whose own HTML fails, named where the caller gave it', () => {
  const refusedBand = () => {
    throw new PlanStepError('waitForFunction', 'Waiting failed: the script threw');
  };

  it("answers a render's 400 naming pdf.header", async () => {
    // Prepare
    const renderer = withFinishing(fakeRenderer(refusedBand), 10_000);
    const plan = buildDocumentPlan({ output: 'PDF', page: { html: b64('<p>body</p>') }, pdf: { header: { html: b64('<p>band</p>') } } } as never, undefined);

    // Act
    const attempt = renderForRequest(renderer, plan);

    // Assess
    await assert.rejects(attempt, (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.deepEqual(error.fields, { 'pdf.header': 'The band could not be printed: Waiting failed: the script threw' });
      return true;
    });
  });

  it("answers a merge part's band as parts.N.pdf.header, and the merge's own band as pdf.footer", async () => {
    // Prepare
    const renderer = withFinishing(fakeRenderer(refusedBand), 10_000);
    const partBand = buildDocumentPlan(
      { parts: [{ page: { html: b64('<p>a</p>') } }, { page: { html: b64('<p>b</p>') }, pdf: { header: { html: b64('<p>band</p>') } } }] } as never,
      undefined,
    );
    const mergeBand = buildDocumentPlan({ parts: [{ page: { html: b64('<p>a</p>') } }], pdf: { footer: { html: b64('<p>band</p>') } } } as never, undefined);

    // Act
    const partAttempt = renderForRequest(renderer, partBand);
    const mergeAttempt = renderForRequest(renderer, mergeBand);

    // Assess
    await assert.rejects(partAttempt, (error: unknown) => error instanceof ValidationError && Object.keys(error.fields).join() === 'parts.1.pdf.header');
    await assert.rejects(mergeAttempt, (error: unknown) => error instanceof ValidationError && Object.keys(error.fields).join() === 'pdf.footer');
  });

  it('answers a band print that ran out of time with the timeout itself (a 504), in a render and in a merge', async () => {
    // Prepare
    const timeout = new RenderTimeoutError(1000);
    const renderer = withFinishing(
      fakeRenderer(() => {
        throw timeout;
      }),
      10_000,
    );
    const render = buildDocumentPlan({ output: 'PDF', page: { html: b64('<p>body</p>') }, pdf: { header: { html: b64('<p>band</p>') } } } as never, undefined);
    const merge = buildDocumentPlan({ parts: [{ page: { html: b64('<p>a</p>') } }], pdf: { footer: { html: b64('<p>band</p>') } } } as never, undefined);

    // Act
    const renderAttempt = renderForRequest(renderer, render);
    const mergeAttempt = renderForRequest(renderer, merge);

    // Assess
    await assert.rejects(renderAttempt, (error: unknown) => error === timeout);
    await assert.rejects(mergeAttempt, (error: unknown) => error === timeout);
  });
});
