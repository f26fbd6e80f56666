import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { handlebarsCacheStats, renderHandlebars } from '../../../lib/templates/handlebars.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function fieldProblem(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected ValidationError, got ${String(error)}`);
    const problem = error.fields['page.htmlTemplate'];
    assert.equal(typeof problem, 'string');
    return problem as string;
  }
  assert.fail('expected the render to throw');
}

describe('renderHandlebars', () => {
  it('fills the template with the caller data', () => {
    // Prepare
    const template = b64('<h1>Invoice {{number}}</h1>{{#each items}}<li>{{@index}}:{{name}}={{price}}</li>{{/each}}{{#if paid}}PAID{{else}}DUE{{/if}}');
    const data = { number: 42, items: [{ name: 'Pen', price: 2 }, { name: 'Ink', price: 5 }], paid: false };

    // Act
    const html = renderHandlebars(template, data);

    // Assess
    assert.equal(html, '<h1>Invoice 42</h1><li>0:Pen=2</li><li>1:Ink=5</li>DUE');
  });

  it('escapes HTML in double-stash and leaves triple-stash raw', () => {
    // Prepare
    const template = b64('<p>{{v}}</p><div>{{{v}}}</div>');

    // Act
    const html = renderHandlebars(template, { v: '<b title="x">&\'</b>' });

    // Assess
    assert.equal(html, '<p>&lt;b title&#x3D;&quot;x&quot;&gt;&amp;&#x27;&lt;/b&gt;</p><div><b title="x">&\'</b></div>');
  });

  it('keeps the built-in helpers lookup, unless and with', () => {
    // Prepare
    const template = b64('{{lookup names 1}}|{{#unless off}}on{{/unless}}|{{#with user}}{{name}}{{/with}}');

    // Act
    const html = renderHandlebars(template, { names: ['a', 'b'], off: false, user: { name: 'Ada' } });

    // Assess
    assert.equal(html, 'b|on|Ada');
  });

  it('renders missing values as empty (not strict)', () => {
    // Act
    const html = renderHandlebars(b64('[{{missing}}][{{a.b.c}}]'), {});

    // Assess
    assert.equal(html, '[][]');
  });

  it('resolves nothing from prototypes', () => {
    // Prepare
    const template = b64(
      [
        '[{{constructor}}]',
        '[{{__proto__}}]',
        '[{{#with this.constructor}}X{{name}}{{/with}}]',
        '[{{#with constructor.prototype}}Y{{/with}}]',
        '[{{lookup this "constructor"}}]',
        '[{{user.__proto__.polluted}}]',
        '[{{toString}}]',
        '[{{#with __proto__}}Z{{polluted}}{{/with}}]',
        '[{{user.constructor.name}}]',
      ].join(''),
    );
    const data = JSON.parse('{"user": {"name": "Ada"}, "__proto__": {"polluted": "yes"}}') as unknown;

    // Act
    const html = renderHandlebars(template, data);

    // Assess
    assert.equal(html, '[][][][][][][][][]');
  });

  it('never pollutes Object.prototype from caller data', () => {
    // Prepare
    const data = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "list": [{"__proto__": {"polluted": "yes"}}]}',
    ) as unknown;
    const template = b64('{{#each list}}{{#each this}}{{@key}}{{/each}}{{/each}}{{#with constructor}}{{#with prototype}}{{polluted}}{{/with}}{{/with}}');

    // Act
    const html = renderHandlebars(template, data);

    // Assess
    assert.equal(html, '');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  it('has no log helper, so template content cannot reach the service logs', () => {
    // Prepare
    const logged: unknown[] = [];
    const original = { log: console.log, info: console.info, warn: console.warn, error: console.error };
    const capture = (...args: unknown[]) => void logged.push(args);
    Object.assign(console, { log: capture, info: capture, warn: capture, error: capture });

    // Act
    let problem: string;
    try {
      problem = fieldProblem(() => renderHandlebars(b64('{{log "secret"}}'), {}));
    } finally {
      Object.assign(console, original);
    }

    // Assess
    assert.match(problem, /Missing helper: "log"/);
    assert.deepEqual(logged, []);
  });

  it('throws ValidationError on page.htmlTemplate when the template does not compile', () => {
    // Act
    const problem = fieldProblem(() => renderHandlebars(b64('{{#if open}}never closed'), { open: true }));

    // Assess
    assert.match(problem, /Template could not be rendered/);
    assert.doesNotMatch(problem, /\n/);
  });

  it('throws ValidationError on page.htmlTemplate for an unknown helper or partial', () => {
    // Act
    const helper = fieldProblem(() => renderHandlebars(b64('{{shout name}}'), { name: 'x' }));
    const partial = fieldProblem(() => renderHandlebars(b64('{{> header}}'), {}));

    // Assess
    assert.match(helper, /Missing helper/);
    assert.match(partial, /partial header could not be found/);
  });

  it('stops a template whose output explodes', () => {
    // Prepare: 300^3 = 27 million iterations if nothing stopped it
    const xs = Array.from({ length: 300 }, (_, i) => i);
    const template = b64('{{#each xs}}{{#each ../xs}}{{#each ../../xs}}<td>{{this}}</td>{{/each}}{{/each}}{{/each}}');

    // Act
    const problem = fieldProblem(() => renderHandlebars(template, { xs }));

    // Assess
    assert.match(problem, /more than 1000000 loop iterations|larger than 5 MB/);
  });

  it('stops a template that renders more than 5 MB', () => {
    // Prepare
    const big = 'x'.repeat(1024 * 1024);
    const template = b64('{{#each xs}}{{{../big}}}{{/each}}');

    // Act
    const problem = fieldProblem(() => renderHandlebars(template, { big, xs: [1, 2, 3, 4, 5, 6] }));

    // Assess
    assert.match(problem, /larger than 5 MB/);
  });

  it('refuses data nested deeper than 100 levels on page.templateData', () => {
    // Prepare
    let deep: unknown = 'bottom';
    for (let i = 0; i < 150; i += 1) deep = { d: deep };

    // Act / Assess
    assert.throws(
      () => renderHandlebars(b64('{{d}}'), deep),
      (error: unknown) => error instanceof ValidationError && typeof error.fields['page.templateData'] === 'string',
    );
  });

  it('serves a repeated template from the compile cache with identical output', () => {
    // Prepare
    const template = b64(`<p>{{greeting}}, {{name}}</p><!-- ${Math.random()} -->`);
    const before = handlebarsCacheStats();

    // Act
    const first = renderHandlebars(template, { greeting: 'Hello', name: 'Ada' });
    const second = renderHandlebars(template, { greeting: 'Hello', name: 'Ada' });
    const other = renderHandlebars(template, { greeting: 'Bye', name: 'Bob' });

    // Assess
    const after = handlebarsCacheStats();
    assert.equal(second, first);
    assert.match(other, /^<p>Bye, Bob<\/p>/);
    assert.equal(after.misses - before.misses, 1, 'compiled once');
    assert.equal(after.hits - before.hits, 2, 'then served from the cache');
  });

  it('does not cache a template that failed', () => {
    // Prepare
    const template = b64(`{{#each}}${Math.random()}`);
    const before = handlebarsCacheStats();

    // Act
    fieldProblem(() => renderHandlebars(template, {}));
    fieldProblem(() => renderHandlebars(template, {}));

    // Assess
    assert.equal(handlebarsCacheStats().misses - before.misses, 2);
  });
});
