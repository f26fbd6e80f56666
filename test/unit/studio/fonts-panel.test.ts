import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FONT_LIST_TTL_MS } from '../../../lib/fonts/user-fonts/account-fonts.js';
import { FONT_LIST_SECONDS, describeFace } from '../../../studio/src/fonts-panel.js';

describe("the studio's fonts panel", () => {
  it('tells how long a renderer takes to see an upload or a delete as the service keeps its font lists', () => {
    assert.equal(FONT_LIST_SECONDS * 1000, FONT_LIST_TTL_MS);
  });

  it('names a face by its weight and style as CSS asks for it', () => {
    assert.equal(describeFace({ weight: 400, style: 'normal' }), 'Regular 400');
    assert.equal(describeFace({ weight: 900, style: 'italic' }), 'Black 900 italic');
    assert.equal(describeFace({ weight: 250, style: 'italic' }), '250 italic');
  });
});
