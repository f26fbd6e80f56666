import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { DOCUMENT_HELPERS } from '../../../lib/templates/handlebars-helpers.js';
import { MAX_ITERATIONS, renderHandlebars } from '../../../lib/templates/handlebars.js';
import { manualFiles, readMarkdown } from '../../helpers/markdown.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const render = (template: string, data: unknown = {}) => renderHandlebars(b64(template), data);

/** The 400's reason on page.htmlTemplate, or a failed assertion if the render did not throw one. */
function misuse(template: string, data: unknown = {}): string {
  try {
    render(template, data);
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected ValidationError, got ${String(error)}`);
    assert.deepEqual(Object.keys(error.fields), ['page.htmlTemplate']);
    return error.fields['page.htmlTemplate'] as string;
  }
  assert.fail(`expected ${template} to be refused`);
}

describe('template helpers', () => {
  describe('formatting with Intl', () => {
    it('formatNumber groups and rounds per locale and options', () => {
      // Act
      const html = render('{{formatNumber n}}|{{formatNumber n locale="de-DE"}}|{{formatNumber n maximumFractionDigits=0}}|{{formatNumber "12.5"}}', { n: 1234567.891 });

      // Assess
      assert.equal(html, '1,234,567.891|1.234.567,891|1,234,568|12.5');
    });

    it('formatCurrency takes the currency as argument or hash, and a locale', () => {
      // Act
      const html = render('{{formatCurrency 1234.5 "EUR" locale="de-DE"}}|{{formatCurrency total currency="usd"}}|{{formatCurrency 5 "JPY" locale="ja-JP"}}', { total: 99 });

      // Assess
      assert.equal(html, '1.234,50\u00a0€|$99.00|￥5');
    });

    it('formatPercent multiplies by 100', () => {
      // Act
      const html = render('{{formatPercent 0.256}}|{{formatPercent 0.256 maximumFractionDigits=1 locale="fr-FR"}}');

      // Assess
      assert.equal(html, '26%|25,6\u00a0%');
    });

    it('formatDate reads ISO strings and epoch milliseconds, in UTC unless told', () => {
      // Act
      const html = render(
        '{{formatDate iso}}|{{formatDate epoch dateStyle="long" locale="de-DE"}}|{{formatDate iso day="numeric" timeZone="Asia/Tokyo"}}|{{formatDate "1700000000000" year="numeric"}}',
        { iso: '2026-01-15T22:30:00Z', epoch: 0 },
      );

      // Assess
      assert.equal(html, '1/15/2026|1. Januar 1970|16|2023');
    });
  });

  describe('comparisons and logic in #if', () => {
    it('compares numbers as numbers and text as text', () => {
      // Prepare
      const template = '{{#if (eq a b)}}eq{{/if}}{{#if (ne a c)}} ne{{/if}}{{#if (lt c a)}} lt{{/if}}{{#if (lte a b)}} lte{{/if}}'
        + '{{#if (gt "10" 9)}} gt{{/if}}{{#if (gte c c)}} gte{{/if}}{{#if (eq s "paid")}} text{{/if}}{{#if (lt "b" "a")}} never{{/if}}';

      // Act
      const html = render(template, { a: 5, b: '5', c: 2, s: 'paid' });

      // Assess
      assert.equal(html, 'eq ne lt lte gt gte text');
    });

    it('and, or and not follow #if truthiness (an empty list is false)', () => {
      // Act
      const html = render('{{and x y}}|{{and x 1 "a"}}|{{or z list}}|{{or z x}}|{{not list}}|{{not x}}', { x: true, y: 0, z: '', list: [] });

      // Assess
      assert.equal(html, 'false|true|false|true|true|false');
    });
  });

  describe('arithmetic', () => {
    it('adds, subtracts, multiplies, divides and rounds', () => {
      // Act
      const html = render('{{add 1 "2.5"}}|{{subtract 10 4}}|{{multiply price qty}}|{{divide 10 4}}|{{round 1.005 2}}|{{round 2.5}}|{{round (multiply 0.1 3) 2}}', { price: 19.99, qty: 3 });

      // Assess
      assert.equal(html, '3.5|6|59.97|2.5|1.01|3|0.3');
    });

    it('sums a field over a list, for totals, skipping empty values', () => {
      // Prepare
      const lines = [{ amount: 10 }, { amount: '2.5' }, { other: 1 }, { amount: null }];

      // Act
      const html = render('{{sum lines "amount"}}|{{sum numbers}}|{{formatCurrency (sum lines "amount") "EUR"}}', { lines, numbers: [1, 2, 3] });

      // Assess
      assert.equal(html, '12.5|6|€12.50');
    });
  });

  describe('strings and lists', () => {
    it('changes case, truncates, defaults, joins and counts', () => {
      // Act
      const html = render(
        '{{uppercase s}}|{{lowercase "ÄB"}}|{{truncate long 8}}|{{truncate long 8 suffix="..."}}|{{truncate "short" 10}}|{{default missing "n/a"}}|{{default "" "-"}}|{{default s "x"}}|{{join tags}}|{{join tags " / "}}|{{length tags}}|{{length s}}|{{length obj}}',
        { s: 'straße', long: 'A very long description', tags: ['a', 'b', 'c'], obj: { k: 1, l: 2 } },
      );

      // Assess
      assert.equal(html, 'STRASSE|äb|A very …|A ver...|short|n/a|-|straße|a, b, c|a / b / c|3|6|2');
    });

    it('escapes helper output in {{ }} like any value', () => {
      // Act
      const html = render('{{uppercase s}}|{{default missing s}}', { s: '<b>x</b>' });

      // Assess
      assert.equal(html, '&lt;B&gt;X&lt;/B&gt;|&lt;b&gt;x&lt;/b&gt;');
    });

    it('json embeds data in a <script> that it cannot end or break', () => {
      // Prepare
      const data = { v: { name: '</script><script>alert(1)</script>', note: '<!-- x -->', amp: 'a&b', seps: 'a\u2028b\u2029c' } };

      // Act
      const html = render('<script>const data = {{json v}};</script>', data);

      // Assess
      const body = html.slice('<script>const data = '.length, -';</script>'.length);
      assert.doesNotMatch(body, /<\/script|<!--|[\u2028\u2029]/i);
      assert.deepEqual(JSON.parse(body), data.v);
      assert.equal(render('{{json missing}}'), 'null');
    });

    it('keeps a data field that shares a helper name, as before helpers existed', () => {
      // Act
      const html = render('{{length}}|{{sum}}|{{default}}|{{#with box}}{{length}}{{/with}}', { length: 12, sum: '€5', default: 'd', box: { length: 3 } });

      // Assess
      assert.equal(html, '12|€5|d|3');
    });
  });

  it("renders the manual's invoice example as the manual says", () => {
    // Prepare: the handlebars block and its data, the json block after it, wherever the manual (README.md, docs/) has them
    const blocks = manualFiles().flatMap((file) => readMarkdown(file).blocks);
    const at = blocks.findIndex((block) => block.language === 'handlebars' && block.code.includes('Invoice'));
    const template = blocks[at]?.code;
    const data = blocks[at + 1]?.language === 'json' ? blocks[at + 1]!.code : undefined;
    assert.ok(template && data, 'the manual has the example');

    // Act
    const html = render(template, JSON.parse(data));

    // Assess
    for (const expected of [
      'Invoice INV-2041',
      'Issued 5. März 2026, due 5. April 2026',
      '<tr class="large">',
      '<td>10 × 125,00\u00a0€</td>',
      'Net 1.560,50\u00a0€',
      'VAT 19%: 296,50\u00a0€',
      'Reverse charge, VAT id FR40303265045',
      'const lines = [{"item":"Consulting"',
    ]) {
      assert.ok(html.includes(expected), `has ${expected}`);
    }
  });

  describe('misuse is a 400 on page.htmlTemplate naming the helper and the reason', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['{{formatNumber "abc"}}', {}, /Helper "formatNumber": value must be a number, got "abc"/],
      ['{{formatNumber}}', {}, /Helper "formatNumber": takes 1 argument, got 0/],
      ['{{formatNumber 1 2}}', {}, /Helper "formatNumber": takes 1 argument, got 2/],
      ['{{formatNumber 1 locale="xx-notalocale-zz"}}', {}, /Helper "formatNumber": unknown locale "xx-notalocale-zz"/],
      ['{{formatNumber 1 locale="qq"}}', {}, /Helper "formatNumber": unknown locale "qq"/],
      ['{{formatNumber 1 maximumFractionDigits=500}}', {}, /Helper "formatNumber": .*maximumFractionDigits/],
      ['{{formatCurrency 1 "XYZ"}}', {}, /Helper "formatCurrency": unknown currency "XYZ"/],
      ['{{formatCurrency 1}}', {}, /Helper "formatCurrency": needs a currency code/],
      ['{{formatDate "next tuesday"}}', {}, /Helper "formatDate": needs an ISO 8601 date or epoch milliseconds/],
      ['{{formatDate d timeZone="Mars/Olympus"}}', { d: 0 }, /Helper "formatDate": .*time ?zone/i],
      ['{{formatPercent list}}', { list: [1] }, /Helper "formatPercent": value must be a number, got a list/],
      ['{{#if (eq 1)}}x{{/if}}', {}, /Helper "eq": takes 2 arguments, got 1/],
      ['{{lt list 1}}', { list: [] }, /Helper "lt": compares numbers or text/],
      ['{{divide 1 0}}', {}, /Helper "divide": division by zero/],
      ['{{add 1 "x"}}', {}, /Helper "add": second value must be a number/],
      ['{{round 1.5 -1}}', {}, /Helper "round": digits must be a whole number/],
      ['{{sum notalist "a"}}', { notalist: 3 }, /Helper "sum": expects a list, got 3/],
      ['{{sum lines "__proto__"}}', { lines: [{}] }, /Helper "sum": field must be the name of a field/],
      ['{{sum lines "a"}}', { lines: [{ a: 'ten' }] }, /Helper "sum": field "a" must be a number/],
      ['{{uppercase obj}}', { obj: { a: 1 } }, /Helper "uppercase": expects text, got an object/],
      ['{{truncate "abc" -2}}', {}, /Helper "truncate": length must be a whole number/],
      ['{{join "a,b"}}', {}, /Helper "join": expects a list/],
      ['{{length 5}}', {}, /Helper "length": expects a list, text or object, got 5/],
      ['{{json}}', {}, /Helper "json": takes 1 argument, got 0/],
    ];
    for (const [template, data, reason] of cases) {
      it(template, () => {
        assert.match(misuse(template, data), reason);
      });
    }
  });

  describe('safety', () => {
    it('never reaches prototypes through a helper', () => {
      // Prepare: the data carries prototype machinery under the names helpers could read.
      const data = JSON.parse('{"lines":[{"amount":1,"__proto__":{"amount":1000}}],"o":{"constructor":{"name":"leak"}}}');

      // Act
      const html = render('{{sum lines "amount"}}|{{length o}}|{{json o}}|{{default o.constructor.name "none"}}', data);

      // Assess
      assert.equal(html, '1|0|{}|none');
      assert.match(misuse('{{sum lines "constructor"}}', data), /Helper "sum": field must be the name of a field/);
      assert.equal(({} as Record<string, unknown>).amount, undefined, 'nothing polluted');
    });

    it('refuses "sum" over inherited fields such as toString', () => {
      // Act
      const html = render('{{sum lines "toString"}}|{{sum lines "valueOf"}}', { lines: [{ a: 1 }, { a: 2 }] });

      // Assess
      assert.equal(html, '0|0');
    });

    it('counts list helpers against the iteration bound', () => {
      // Prepare: one template walking a list too large for the bound, through sum and join.
      const big = Array.from({ length: MAX_ITERATIONS + 1 }, () => 1);

      // Act
      const sumReason = misuse('{{sum big}}', { big });
      const joinReason = misuse('{{join big}}', { big });

      // Assess
      assert.match(sumReason, /more than 1000000 loop iterations/);
      assert.match(joinReason, /more than 1000000 loop iterations/);
    });

    it('keeps the output bound when helpers build large text', () => {
      // Prepare
      const words = Array.from({ length: 600_000 }, () => 'abcdefghij');

      // Act
      const reason = misuse('{{join words}}', { words });

      // Assess
      assert.match(reason, /Rendered HTML is larger than 5 MB/);
    });

    it('cannot be replaced or extended by a template', () => {
      // Act: a template can only call helpers; the registry stays frozen.
      const html = render('{{#each list}}{{formatNumber this}} {{/each}}', { list: [1000, 2000] });

      // Assess
      assert.equal(html, '1,000 2,000 ');
      assert.equal(DOCUMENT_HELPERS.length, 26);
    });
  });
});
