import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

/**
 * Issue 45: a finishing step and the signing library know neither the request
 * nor HTTP. Their errors name paths inside their own options (`header`,
 * `signature.certify`) and say what failed in their own terms; the edge names
 * where the options came from (`pdf.`, `parts.3.pdf.`) and what each error is
 * for a caller (lib/plan/request-errors.ts, lib/errors.ts's httpError).
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const LIBRARIES = ['lib/finishing', 'lib/signing'];
/** What belongs to the edge: HTTP's errors, the request schemas, the request's plan and the HTTP stack. */
const EDGE = ['lib/errors.ts', 'lib/schemas/', 'lib/plan/', 'lib/http/', 'lib/api/'];

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The code of a module without its comments (a comment may well say where an option comes from). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

/** Every module a source imports, statically or dynamically, as a path from the repository's root. */
function importsOf(file: string, code: string): string[] {
  const specifiers = [...code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((match) => match[1] as string);
  return specifiers.filter((specifier) => specifier.startsWith('.')).map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

describe('lib/finishing and lib/signing › no request, no HTTP', () => {
  const files = LIBRARIES.flatMap(sources);

  it('import nothing of the edge: not the HTTP errors, the request schemas, the plan builder or the HTTP stack', () => {
    // Act
    const found = files.flatMap((file) =>
      importsOf(file, withoutComments(readFileSync(join(ROOT, file), 'utf8')))
        .filter((target) => EDGE.some((edge) => (edge.endsWith('/') ? target.startsWith(edge) : target === edge)))
        .map((target) => `${file} imports ${target}`),
    );

    // Assess
    assert.ok(files.length > 20, `the sources were found (${files.length})`);
    assert.deepEqual(found, []);
  });

  it("name no request path in their code: no 'pdf.…' field, no HTTP status", () => {
    // Act
    const found = files.flatMap((file) => {
      const code = withoutComments(readFileSync(join(ROOT, file), 'utf8'));
      const paths = [...code.matchAll(/['"`]pdf\.[A-Za-z]/g)].map((match) => `${file}: a request path ${match[0]}…`);
      const statuses = /\bstatusCode\b|\bServiceError\b/.test(code) ? [`${file}: an HTTP status`] : [];
      return [...paths, ...statuses];
    });

    // Assess
    assert.deepEqual(found, []);
  });
});
