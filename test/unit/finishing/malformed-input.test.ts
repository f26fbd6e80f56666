import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CorruptPageTreeError, NumberParsingError, PDFDocument } from '@cantoo/pdf-lib';
import { BudgetDeadlineError, DocumentBudgetError } from '../../../lib/budget/document-budget.js';
import { RenderTimeoutError } from '../../../lib/errors.js';
import { BandPrintRefusedError, FinishingError, PageImageLimitError, PdfaConformanceError } from '../../../lib/finishing/pipeline/errors.js';
import { malformedInput } from '../../../lib/finishing/pipeline/malformed-input.js';
import { InputPdfError, OptionError } from '../../../lib/pdf/errors.js';
import { RendererBusyError } from '../../../lib/render/admission.js';
import { SignerNotGrantedError, SignerUnavailableError, TimestampAuthorityError } from '../../../lib/signing/errors.js';
import { RevocationUnavailableError } from '../../../lib/signing/validation-material.js';

describe('malformedInput › which failures are the caller\'s document', () => {
  it("makes what pdf-lib and JavaScript throw on a malformed structure a 400 on the document", async () => {
    // Prepare: what the library throws as it reads a structure that is not as the specification says.
    const document = await PDFDocument.create();
    const thrownByLibrary = (() => {
      try {
        document.removePage(3);
      } catch (error) {
        return error;
      }
      throw new Error('removing a page past the end throws');
    })();
    const raised = [
      thrownByLibrary,
      new NumberParsingError({ line: 1, column: 2, offset: 3 }, 'x'),
      new CorruptPageTreeError(2, 'insert'),
      new TypeError("Cannot read properties of undefined (reading 'lookup')"),
      new RangeError('Invalid array length'),
      new Error('Expected instance of PDFDict, but got instance of PDFNumber'),
    ];

    // Act
    const made = raised.map((error) => malformedInput(error, 'The pages could not be arranged'));

    // Assess
    made.forEach((error, index) => {
      assert.ok(error instanceof InputPdfError, `${index}: ${String(error)}`);
      assert.match(error.message, /^The pages could not be arranged: the document is malformed/);
      assert.equal(error.cause, raised[index]);
    });
  });

  it('lets every error raised on purpose through as it is: the options, budget, signing and finishing errors, and the renderer\'s through a step\'s context', () => {
    // Prepare
    const raised = [
      new OptionError({ header: 'x' }),
      new InputPdfError('x'),
      new BudgetDeadlineError(1000),
      new DocumentBudgetError('objects', 10),
      new FinishingError('bands'),
      new PdfaConformanceError(['x']),
      new PageImageLimitError('pages', 'x'),
      new BandPrintRefusedError('x'),
      new SignerUnavailableError('legal', 'AccessDeniedException'),
      new TimestampAuthorityError('unreachable'),
      new SignerNotGrantedError('legal'),
      new RevocationUnavailableError('x'),
      new RenderTimeoutError(1000),
      new RendererBusyError('no session'),
    ];

    // Act
    const made = raised.map((error) => malformedInput(error, 'The bands could not be laid'));

    // Assess
    made.forEach((error, index) => assert.equal(error, raised[index], String(raised[index])));
  });
});
