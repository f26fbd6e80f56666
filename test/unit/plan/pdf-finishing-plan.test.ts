import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pdfFinishingPlan } from '../../../lib/plan/pdf-finishing-plan.js';

describe('pdfFinishingPlan: pages and forms', () => {
  it('plans the page choice and rotation with rotate.pages defaulting to every page, and nothing for an empty pages string', () => {
    assert.deepEqual(pdfFinishingPlan({ pages: '3, 1-2', rotate: { angle: 90 } }).pages, { order: '3, 1-2', rotate: { angle: 90, pages: '' } });
    assert.deepEqual(pdfFinishingPlan({ pages: ' ' }).pages, undefined);
    assert.deepEqual(pdfFinishingPlan({ rotate: { angle: 180, pages: '2-' } }).pages, { rotate: { angle: 180, pages: '2-' } });
  });

  it('flattens the fields with form.flatten, everything with pdf.flatten, and fills nothing when only pdf.flatten is asked', () => {
    const fields = { name: 'Jane', agree: true };
    assert.deepEqual(pdfFinishingPlan({ form: { fields } }).form, { fields, flatten: 'none' });
    assert.deepEqual(pdfFinishingPlan({ form: { fields, flatten: true } }).form, { fields, flatten: 'fields' });
    assert.deepEqual(pdfFinishingPlan({ form: { fields, flatten: false }, flatten: true }).form, { fields, flatten: 'all' });
    assert.deepEqual(pdfFinishingPlan({ flatten: true }).form, { flatten: 'all' });
    assert.equal(pdfFinishingPlan({ flatten: false }).form, undefined);
  });
});
