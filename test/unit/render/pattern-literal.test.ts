import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { requiredTexts } from '../../../lib/render/page/pattern-literal.js';

describe('requiredTexts', () => {
  it('gives the site name of a typical autoconsent URL pattern, outside its optional parts', () => {
    assert.deepEqual(requiredTexts('^https?://(www\\.)?dropbox\\.com/'), ['dropbox.com/']);
    assert.deepEqual(requiredTexts('^https?://(www\\.)?a\\.example|^https?://shop\\.example\\.org'), ['a.example', '://shop.example.org']);
  });

  it('leaves out characters a quantifier makes optional or repeated, and classes', () => {
    assert.deepEqual(requiredTexts('abcd?efgh'), ['efgh']);
    assert.deepEqual(requiredTexts('ab{0,2}cdef'), ['cdef']);
    assert.deepEqual(requiredTexts('[a-z]+shop[0-9]*\\.de'), ['shop']);
  });

  it('gives null when an alternative has no text it must contain, or uses an escape it does not read', () => {
    assert.equal(requiredTexts('^.*(a|b)\\.c'), null);
    assert.equal(requiredTexts('example|.*'), null);
    assert.equal(requiredTexts('\\u0061bcdef'), null);
    assert.equal(requiredTexts('(ab)\\1cdef'), null);
  });

  it('never rules out a URL that the pattern matches, for every site rule autoconsent ships', () => {
    // Prepare: URLs on each rule's own site (rule names are mostly the site's domain).
    const compact = createRequire(import.meta.url)('@duckduckgo/autoconsent/rules/compact-rules.json') as { r: unknown[][]; index: { specificRuleRange: [number, number] } };
    const rules = compact.r.slice(...compact.index.specificRuleRange);
    let matched = 0;
    const missed: string[] = [];

    // Act
    for (const rule of rules) {
      const pattern = String(rule[3]);
      const texts = requiredTexts(pattern);
      const site = String(rule[1]).replace(/^auto_[A-Z]{2}_/, '').replace(/_.*$/, '');
      for (const url of [`https://www.${site}/`, `https://${site}/`, `http://www.${site}/page`, `https://de.${site}/`]) {
        if (url.match(pattern) === null) continue;
        matched += 1;
        if (texts !== null && !texts.some((text) => url.includes(text))) missed.push(`${pattern} ${url}`);
      }
    }

    // Assess
    assert.ok(matched > rules.length / 2, `only ${matched} URLs matched their rule's pattern`);
    assert.deepEqual(missed, []);
  });
});
