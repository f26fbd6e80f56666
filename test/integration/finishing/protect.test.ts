import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProtectionOutput } from '../../../lib/finishing/steps/protect/definition.js';
import { warmFinishingRenderer, type RequestRenderer } from '../../helpers/local-egress.js';
import { pdfinfo, pdftotext, qpdf } from '../../helpers/pdf-tools.js';
import { b64 } from '../render/render-fixtures.js';

/**
 * pdf.protection proven with Debian's qpdf and poppler, which share no code
 * with pdf-lib: AES-256 (R 6, AESv3), exactly the permissions asked for, no
 * way in without the password, and a clean file with it.
 */
const statement = { html: b64('<title>November statement</title><h1>Statement for Ada Lovelace</h1><p>Balance due: 42.00 EUR</p>') };

/** qpdf's permission lines, e.g. {"print high resolution": "not allowed"}. */
function permissionsOf(showEncryption: string): Record<string, string> {
  const lines = showEncryption.split('\n').filter((line) => /: (?:allowed|not allowed)$/.test(line));
  return Object.fromEntries(lines.map((line) => line.split(': ') as [string, string]));
}

describe('finishing › protection (qpdf, poppler)', () => {
  let renderer: RequestRenderer;
  before(async () => {
    renderer = await warmFinishingRenderer();
  });
  after(async () => {
    await renderer?.close();
  });

  const protect = async (protection: ProtectionOutput) =>
    new Uint8Array((await renderer.render({ output: 'PDF', page: statement, pdf: { protection } })).body);

  it('encrypts with AES-256 under the user password: no way in without it, clean with it', async () => {
    // Act
    const pdf = await protect({ userPassword: 'customer-1234', ownerPassword: 'bank-owner-secret' });

    // Assess
    const shown = qpdf(pdf, ['--show-encryption', '--password=customer-1234']);
    assert.match(shown.stdout, /^R = 6$/m);
    assert.match(shown.stdout, /^stream encryption method: AESv3$/m);
    assert.match(shown.stdout, /^string encryption method: AESv3$/m);
    assert.equal(qpdf(pdf, ['--check']).status, 2, 'qpdf refuses to open it without a password');
    assert.match(qpdf(pdf, ['--check']).stderr, /invalid password/);
    assert.equal(qpdf(pdf, ['--check', '--password=wrong']).status, 2);
    const checked = qpdf(pdf, ['--check', '--password=customer-1234']);
    assert.equal(checked.status, 0, checked.stderr + checked.stdout);
    assert.match(checked.stdout, /No syntax or stream encoding errors found/);
    assert.notEqual(pdfinfo(pdf).status, 0, 'pdfinfo cannot read it without the password');
    assert.notEqual(pdftotext(pdf).status, 0, 'pdftotext cannot read it without the password');
    const info = pdfinfo(pdf, ['-upw', 'customer-1234']).stdout;
    assert.match(info, /^Encrypted:\s+yes \(.*algorithm:AES-256\)$/m);
    // Strings are encrypted too (pdf-lib alone encrypts streams only): the title reads back as printed.
    assert.match(info, /^Title:\s+November statement$/m);
    assert.match(info, /^Creator:\s+Chromium$/m);
    assert.match(pdftotext(pdf, ['-upw', 'customer-1234']).stdout, /Balance due: 42\.00 EUR/);
    assert.match(pdftotext(pdf, ['-opw', 'bank-owner-secret']).stdout, /Statement for Ada Lovelace/);
  });

  it('sets exactly the permissions asked for, unset ones allowed', async () => {
    // Act
    const pdf = await protect({
      userPassword: 'u',
      ownerPassword: 'o',
      permissions: { print: 'lowResolution', modify: false, copy: false, annotate: true, fillForms: false, accessibility: true },
    });

    // Assess
    const shown = qpdf(pdf, ['--show-encryption', '--password=u']).stdout;
    assert.deepEqual(permissionsOf(shown), {
      'extract for accessibility': 'allowed',
      'extract for any purpose': 'not allowed',
      'print low resolution': 'allowed',
      'print high resolution': 'not allowed',
      'modify document assembly': 'allowed',
      'modify forms': 'not allowed',
      'modify annotations': 'allowed',
      'modify other': 'not allowed',
      'modify anything': 'not allowed',
    });
  });

  it('forbids printing with print "none", and allows everything when no permission is given', async () => {
    // Act
    const none = await protect({ ownerPassword: 'o', permissions: { print: 'none' } });
    const open = await protect({ userPassword: 'u', ownerPassword: 'o' });

    // Assess
    const noPrint = permissionsOf(qpdf(none, ['--show-encryption']).stdout);
    assert.equal(noPrint['print low resolution'], 'not allowed');
    assert.equal(noPrint['print high resolution'], 'not allowed');
    assert.equal(noPrint['modify anything'], 'allowed');
    assert.ok(Object.values(permissionsOf(qpdf(open, ['--show-encryption', '--password=u']).stdout)).every((p) => p === 'allowed'));
  });

  it('with only an owner password opens without one, restricted, and the owner password unlocks it', async () => {
    // Act
    const pdf = await protect({ ownerPassword: 'owner-only', permissions: { copy: false } });

    // Assess
    assert.equal(qpdf(pdf, ['--check']).status, 0, 'an empty user password opens it');
    assert.match(qpdf(pdf, ['--show-encryption', '--password=owner-only']).stdout, /Supplied password is owner password/);
    assert.equal(permissionsOf(qpdf(pdf, ['--show-encryption']).stdout)['extract for any purpose'], 'not allowed');
  });
});
