import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { openExistingPdf } from '../../../lib/finishing/input/existing-pdf.js';
import { readPdfInput } from '../../../lib/finishing/input/pdf-input-bounds.js';
import { passwordForRevision, saslPrep } from '../../../lib/pdf/encryption-password.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../../fixtures/pdfjs/${name}`, import.meta.url)));

describe('a non-ASCII password of an AES-256 file', () => {
  it('prepares it as RFC 4013 says: soft hyphen to nothing, ª to a, a no-break space to a space', () => {
    assert.equal(saslPrep('S\u00aaSL\u00adprep'), 'SaSLprep');
    assert.equal(saslPrep('a\u00a0b'), 'a b');
    assert.equal(passwordForRevision('pässwört', 5), Buffer.from('pässwört', 'utf8').toString('latin1'));
    assert.equal(passwordForRevision('pässwört', 4), 'pässwört');
  });

  it('opens a revision 5 file with its UTF-8 password (PDF.js issue21579.pdf)', async () => {
    // Act
    const read = await readPdfInput(fixture('issue21579.pdf'), { decrypt: true, password: 'pässwört' });
    const opened = await openExistingPdf(fixture('issue21579.pdf'), 'pässwört');

    // Assess
    assert.ok(!('problem' in read), JSON.stringify(read));
    assert.ok(opened.bytes.length > 0);
  });

  it('opens a revision 6 file with a password that SASLprep maps (PDF.js saslprep-r6.pdf), and still refuses a wrong one', async () => {
    const read = await readPdfInput(fixture('saslprep-r6.pdf'), { decrypt: true, password: 'S\u00aaSL\u00adprep' });
    assert.ok(!('problem' in read), JSON.stringify(read));
    const wrong = await readPdfInput(fixture('saslprep-r6.pdf'), { decrypt: true, password: 'SASLprep' });
    assert.ok('problem' in wrong && wrong.password === true);
  });
});
