/**
 * Handlebars payloads of the public SSTI catalogues (PayloadsAllTheThings,
 * HackTricks) against the service's one Handlebars environment: none may
 * reach a constructor, a prototype or the process, and none may make the
 * service do more work than the `#each` budget allows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { renderHandlebars } from '../../../lib/templates/handlebars.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The page.htmlTemplate problem of a render that must be refused. */
function refusal(template: string, data: unknown = {}): string {
  try {
    renderHandlebars(b64(template), data);
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected ValidationError, got ${String(error)}`);
    return String(error.fields['page.htmlTemplate']);
  }
  assert.fail('expected the template to be refused');
}

/** The classic Handlebars RCE (Mahmoud Gamal's), with a harmless body that would print the PATH. */
const RCE = `{{#with "s" as |string|}}{{#with "e"}}{{#with split as |conslist|}}{{this.pop}}{{this.push (lookup string.sub "constructor")}}{{this.pop}}{{#with string.split as |codelist|}}{{this.pop}}{{this.push "return process.env.PATH;"}}{{this.pop}}{{#each conslist}}{{#with (string.sub.apply 0 codelist)}}[{{this}}]{{/with}}{{/each}}{{/with}}{{/with}}{{/with}}{{/with}}`;

/**
 * Inline partials nested `levels` deep, each calling the one below ten times:
 * 10^(levels+1) bytes from a template of a few hundred, with no `#each` at all.
 */
function inlinePartialBomb(levels: number): string {
  const name = (i: number) => String.fromCharCode(97 + i);
  let template = `{{#*inline "${name(0)}"}}xxxxxxxxxx{{/inline}}`;
  for (let i = 1; i <= levels; i += 1) template += `{{#*inline "${name(i)}"}}${`{{> ${name(i - 1)}}}`.repeat(10)}{{/inline}}`;
  return `${template}{{> ${name(levels)}}}`;
}

/**
 * `join` fed its own output as the separator, `levels` deep through block
 * params: each level is nine times the one before, from a few hundred bytes.
 */
function joinBomb(levels: number): string {
  let open = '';
  let close = '';
  let previous = '"xxxxxxxxxx"';
  for (let i = 0; i < levels; i += 1) {
    open += `{{#with (join @root.list ${previous}) as |v${i}|}}`;
    close = `{{/with}}${close}`;
    previous = `v${i}`;
  }
  return `${open}{{${previous}}}${close}`;
}

/** `json` of its own output, `levels` deep: escaping doubles the backslashes, so the text doubles a level. */
function jsonBomb(levels: number): string {
  let open = '';
  let close = '';
  let previous = '"<<<<<<<<<<"';
  for (let i = 0; i < levels; i += 1) {
    open += `{{#with (json ${previous}) as |v${i}|}}`;
    close = `{{/with}}${close}`;
    previous = `v${i}`;
  }
  return `${open}{{length ${previous}}}${close}`;
}

describe('Handlebars: the SSTI catalogue', () => {
  const reachNothing: Record<string, string> = {
    'the split/sub constructor chain (RCE)': RCE,
    'constructor of constructor, called': '{{#with (lookup this "constructor")}}{{#with (lookup this "constructor")}}[{{this "return process"}}]{{/with}}{{/with}}',
    'constructor through a path': '[{{this.constructor.constructor}}][{{user.constructor.name}}][{{user.__proto__.constructor}}]',
    'prototype getters': '[{{lookup this "__lookupGetter__"}}][{{lookup this "__defineGetter__"}}][{{lookup (lookup this "toString") "call"}}][{{hasOwnProperty}}][{{valueOf}}]',
    'the root context': '[{{#with @root}}{{__proto__.constructor.name}}{{constructor.name}}{{/with}}]',
    'a missing block helper named constructor': '[{{#constructor}}{{this}}{{/constructor}}][{{#__proto__}}{{this}}{{/__proto__}}]',
    'string methods on data': '[{{user.name.constructor}}][{{user.name.length}}][{{#with user.name}}{{toUpperCase}}{{constructor.name}}{{/with}}]',
    'array methods on data': '[{{#with list}}{{pop}}{{shift}}{{reverse}}{{constructor.name}}{{/with}}]',
  };
  for (const [label, template] of Object.entries(reachNothing)) {
    it(`resolves nothing for ${label}`, () => {
      // Act
      const html = renderHandlebars(b64(template), { user: { name: 'ann' }, list: ['a', 'b'] });

      // Assess
      assert.doesNotMatch(html, /function|Function|Object|String|Array|native code|\/bin|process|ANN|a,b/, html);
    });
  }

  it('lets no data key reach a prototype, in any nesting', () => {
    // Prepare
    const data = JSON.parse('{"__proto__":{"polluted":"P"},"a":{"__proto__":{"polluted":"P"}},"constructor":{"prototype":{"polluted":"P"}},"list":[{"__proto__":{"polluted":"P"}}]}') as unknown;

    // Act
    const html = renderHandlebars(b64('[{{polluted}}][{{a.polluted}}][{{#each list}}{{polluted}}{{/each}}][{{constructor.prototype.polluted}}]'), data);

    // Assess
    assert.equal(html, '[][][][]');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('refuses dynamic partials and decorators other than inline', () => {
    // Act
    const dynamic = refusal('{{> (lookup . "x")}}', { x: 'y' });
    const decorator = refusal('{{* log "x"}}');

    // Assess
    assert.match(dynamic, /partial/);
    assert.match(decorator, /decorator/i);
  });

  it('refuses inline partials: a caller partial is a way around the #each budget', () => {
    // Act: 10^6 bytes from 400, then a plain one.
    const bomb = refusal(inlinePartialBomb(5));
    const plain = refusal('{{#*inline "p"}}x{{/inline}}{{> p}}');
    const recursive = refusal('{{#*inline "p"}}x{{> p}}{{/inline}}{{> p}}');

    // Assess
    for (const problem of [bomb, plain, recursive]) assert.match(problem, /inline/);
  });

  it('stops a join whose separator is its own output at the helper, before it builds the text', () => {
    // Prepare: 48 MB at the seventh level, 430 MB (600 MB of memory) at the eighth.
    const list = Array.from({ length: 10 }, () => 'y');

    // Act
    const problem = refusal(joinBomb(7), { list });
    const fine = renderHandlebars(b64('{{join list "-"}}'), { list });

    // Assess
    assert.match(problem, /join/);
    assert.equal(fine, 'y-y-y-y-y-y-y-y-y-y');
  });

  it('stops escaped output at the 5 MB bound as it is built, not at the string limit of V8', () => {
    // Prepare: escaping makes 4 MB of each 1 MB of "<"; 130 of them were built (520 MB, about 2 GB of
    // memory and 10 s) before V8 refused a longer string and the render ended as "too large".
    const data = { v: '<'.repeat(1024 * 1024) };

    // Act
    const problem = refusal('{{v}}'.repeat(130), data);
    const fine = renderHandlebars(b64('{{v}}'), { v: '<b>' });

    // Assess
    assert.match(problem, /Rendered HTML is larger than 5 MB/);
    assert.equal(fine, '&lt;b&gt;');
  });

  it('stops raw output of a list at the 5 MB bound as it is built', () => {
    // Prepare: {{{list}}} turns the list into text anew each time (2 MB here); 300 of them were built up
    // to V8's string limit (660 MB of memory) before the render ended as "too large".
    const data = { list: Array.from({ length: 1_000_000 }, () => 'a') };

    // Act
    const problem = refusal('{{{list}}}'.repeat(300), data);
    const fine = renderHandlebars(b64('{{{list}}}|{{list}}|{{#each list}}{{this}}{{/each}}'), { list: ['<a>', 'b'] });

    // Assess
    assert.match(problem, /Rendered HTML is larger than 5 MB/);
    assert.equal(fine, '<a>,b|&lt;a&gt;,b|&lt;a&gt;b');
  });

  it('stops raw output of helper results at the 5 MB bound as it is built', () => {
    // Prepare: each {{{json list}}} builds 4 MB anew; 150 of them passed V8's string limit (about 600 MB).
    const data = { list: Array.from({ length: 1_000_000 }, () => 'a') };

    // Act
    const problem = refusal('{{{json list}}}'.repeat(150), data);
    const fine = renderHandlebars(b64('{{{json list}}}|{{json list}}|{{{uppercase name}}}'), { list: ['<a>'], name: 'x' });

    // Assess
    assert.match(problem, /Rendered HTML is larger than 5 MB/);
    assert.equal(fine, '["\\u003ca\\u003e"]|["\\u003ca\\u003e"]|X');
  });

  it('refuses a template with more expressions than it may compile, before parsing it', () => {
    // Prepare: Handlebars' compiler takes about 20 KB of memory per expression: 40 000 {{a}} (200 KB) took
    // 3 s and 2 GB, 1 MB of them ran the process out of memory, and parsing alone 3.7 MB of them took 8 s.
    const tags = '{{a}}'.repeat(20_001);
    const args = `{{a${' a'.repeat(20_000)}}}`;
    const paths = `{{a${'.a'.repeat(20_000)}}}`;
    const commented = `{{!-- ${'word '.repeat(50_000)} --}}<p>{{ name }}</p>`;

    // Act
    const problems = [tags, args, paths].map((template) => refusal(template, { a: 1 }));
    const fine = renderHandlebars(b64(`${'{{#if a}}{{ a }}{{/if}}'.repeat(1_000)}${commented}`), { a: 1, name: 'n' });

    // Assess
    for (const problem of problems) assert.match(problem, /more than 10000 expressions/);
    assert.equal(fine, `${'1'.repeat(1_000)}<p>n</p>`);
  });

  it('counts a helper result printed at once only once: 3 MB of joined text still renders', () => {
    // Prepare
    const list = Array.from({ length: 300_000 }, () => 'abcdefghij');

    // Act
    const html = renderHandlebars(b64('{{join list ""}}'), { list });

    // Assess
    assert.equal(html.length, 3_000_000);
  });

  it('stops any helper whose result outgrows the output bound, even one never printed (json of json)', () => {
    // Act: 22 levels build 20 MB that nothing prints; 26 took 4.7 s and 1.2 GB before a RangeError ended it.
    const problem = refusal(jsonBomb(22));
    const fine = renderHandlebars(b64('{{json list}}'), { list: ['<a>'] });

    // Assess: stopped by the helper's own bound or by the text all helpers built, whichever comes first.
    assert.match(problem, /larger than 5 MB/);
    assert.equal(fine, '["\\u003ca\\u003e"]');
  });
});
