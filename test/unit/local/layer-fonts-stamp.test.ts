import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layerFontsCurrent, layerFontsDigest, layerFontsStamp } from '../../../scripts/build-layer.js';

/**
 * npm start builds the layer's fonts when they are not the ones the catalogue
 * and the installed font packages make: a clone with last month's fonts
 * folder gets the new faces, not only a fresh clone.
 */
describe('layer fonts of npm start', () => {
  let layer: string;

  before(() => {
    layer = mkdtempSync(join(tmpdir(), 'docrender-stamp-'));
  });
  after(() => rmSync(layer, { recursive: true, force: true }));

  it('rebuilds a fonts folder that has no stamp (built before the catalogue said what it holds)', () => {
    // Prepare: last month's folder
    mkdirSync(join(layer, 'fonts'), { recursive: true });
    rmSync(layerFontsStamp(layer), { force: true });
    // Act / Assess
    assert.equal(layerFontsCurrent(layer), false);
  });

  it('rebuilds fonts built from another catalogue or other font packages', () => {
    // Prepare
    mkdirSync(join(layer, 'fonts'), { recursive: true });
    writeFileSync(layerFontsStamp(layer), 'a digest of another catalogue');
    // Act / Assess
    assert.equal(layerFontsCurrent(layer), false);
  });

  it('keeps fonts built from the catalogue and packages installed now', () => {
    // Prepare
    mkdirSync(join(layer, 'fonts'), { recursive: true });
    writeFileSync(layerFontsStamp(layer), layerFontsDigest());
    // Act / Assess
    assert.equal(layerFontsCurrent(layer), true);
  });
});
