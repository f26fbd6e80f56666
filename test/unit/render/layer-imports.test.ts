import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const RENDER = join(import.meta.dirname, '../../../lib/render');
const filesOf = (layer: string) => readdirSync(join(RENDER, layer)).filter((name) => name.endsWith('.ts')).map((name) => join(RENDER, layer, name));
/** Every module of lib/render, its own files and each layer's. */
const allFiles = () => ['.', 'browser', 'page', 'output'].flatMap(filesOf);
const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'|import\('([^']+)'\)/g)].map((m) => m[1] ?? m[2] ?? '');

describe('render layers', () => {
  it('import one way: output → page → browser, never back', () => {
    // Act
    const backwards = [
      ...filesOf('browser').flatMap((file) => importsOf(file).filter((spec) => /\.\.\/(page|output)\//.test(spec)).map((spec) => `${file}: ${spec}`)),
      ...filesOf('page').flatMap((file) => importsOf(file).filter((spec) => /\.\.\/output\//.test(spec)).map((spec) => `${file}: ${spec}`)),
    ];

    // Assess
    assert.deepEqual(backwards, []);
  });

  it('keep the browser and page layers free of the request: no request field named', () => {
    // Act
    const files = [...filesOf('browser'), ...filesOf('page')];
    const fieldNames = files.filter((file) => /'(page|pdf|screenshot)\.[a-zA-Z]/.test(readFileSync(file, 'utf8')));

    // Assess
    assert.deepEqual(fieldNames, []);
  });

  it('import nothing of the request layer, not even a type: no schemas, HTTP, API or plan modules (the plan is built at the edge, its types live in render-plan.ts)', () => {
    // Act
    const files = allFiles();
    const requestImports = files.flatMap((file) => importsOf(file).filter((spec) => /\/(schemas|http|api|plan)\//.test(spec)).map((spec) => `${file}: ${spec}`));

    // Assess
    assert.ok(files.some((file) => file.endsWith('overlay.ts')), 'the output layer is read');
    assert.deepEqual(requestImports, []);
  });
});
