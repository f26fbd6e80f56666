/**
 * What the manual check reads (test/unit/openapi/options-documented.test.ts):
 * the option paths of an OpenAPI document's request bodies, the manual's
 * sections, and which options or defaults a manual leaves out. Shared with
 * the finishing registry's test, which shows a new step's options reach it.
 */
import { manualFiles, parseMarkdown, readMarkdown, withoutCodeSpans } from './markdown.js';


type Schema = {
  $ref?: string;
  default?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

export type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};

export type OptionPath = { path: string[]; body: string; default?: unknown };

/** A part of the manual from one heading to the next: the words it writes in code, and all its text. */
export type Section = { words: Set<string>; text: string };

/** Every property path of every request body, each parent/name pair once (the first path that reaches it). */
export function requestOptionPaths(doc: Doc): OptionPath[] {
  const found = new Map<string, OptionPath>();
  const resolve = (schema: Schema) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)!] : schema);
  const walk = (schema: Schema | undefined, path: string[], body: string, refs: string[]) => {
    if (!schema) return;
    if (schema.$ref) {
      if (refs.includes(schema.$ref)) return;
      walk(resolve(schema), path, body, [...refs, schema.$ref]);
      return;
    }
    const option = found.get(`${path.at(-2) ?? ''}/${path.at(-1)}`);
    if (option && schema.default !== undefined) option.default = schema.default;
    for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(branch, path, body, refs);
    walk(schema.items, path, body, refs);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const next = [...path, name];
      const key = `${path.at(-1) ?? ''}/${name}`;
      if (!found.has(key)) found.set(key, { path: next, body });
      walk(property, next, body, refs);
    }
  };
  for (const methods of Object.values(doc.paths)) {
    for (const operation of Object.values(methods)) {
      const schema = operation.requestBody?.content['application/json']?.schema;
      if (schema) walk(schema, [], schema.$ref?.split('/').at(-1) ?? 'inline', []);
    }
  }
  return [...found.values()];
}

/** Each section of the given Markdown texts: the words written in code, and its text. */
export function sectionsOf(docs: Array<Pick<ReturnType<typeof parseMarkdown>, 'prose' | 'blocks'>>): Section[] {
  const sections: Section[] = [];
  for (const { prose, blocks } of docs) {
    const blockAt = new Map(blocks.map((block) => [block.line, block.code]));
    let words = new Set<string>();
    let text: string[] = [];
    let paragraph: string[] = [];
    const add = (code: string) => {
      for (const word of code.match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(word);
    };
    // A code span may run over a line break: spans are read per paragraph.
    const endParagraph = () => {
      for (const span of codeSpans(paragraph.join('\n'))) add(span);
      paragraph = [];
    };
    prose.forEach((line, index) => {
      if (/^ {0,3}#{1,6}\s/.test(line)) {
        endParagraph();
        sections.push({ words, text: text.join('\n') });
        words = new Set();
        text = [];
      }
      const block = blockAt.get(index + 1);
      if (block) add(block);
      text.push(block ?? line);
      if (line.trim() === '') endParagraph();
      else paragraph.push(line);
    });
    endParagraph();
    sections.push({ words, text: text.join('\n') });
  }
  return sections;
}

/** The texts of a paragraph's code spans. */
function codeSpans(text: string): string[] {
  const stripped = withoutCodeSpans(text);
  const spans: string[] = [];
  for (let at = 0; at < text.length; at++) {
    if (stripped[at] === text[at]) continue;
    let end = at;
    while (end < text.length && stripped[end] !== text[end]) end++;
    spans.push(text.slice(at, end));
    at = end;
  }
  return spans;
}

/** The paths no section names (the option beside its parent, both in code). */
export function undocumented(paths: OptionPath[], sections: Section[]): string[] {
  return paths.filter(({ path }) => !sections.some((section) => names(section, path))).map(({ path, body }) => `${path.join('.')} (${body})`);
}

/** The section names the option: its name in code beside its parent's. */
const names = ({ words }: Section, path: string[]) => words.has(path.at(-1)!) && (path.length === 1 || words.has(path.at(-2)!));

/**
 * Options with a text or number default that no section naming them states
 * (`letter`, `1.5cm`, `0.5`). Boolean defaults are left out: the docs say
 * them in words ("unset = allowed"), which a search cannot read.
 */
export function unstatedDefaults(paths: OptionPath[], sections: Section[]): string[] {
  return paths
    .filter((option) => typeof option.default === 'string' || typeof option.default === 'number')
    .filter(({ path, default: value }) => {
      const stated = new RegExp(`(?<![\\w.#-])${String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-]|\\.\\d)`);
      return !sections.some((section) => names(section, path) && stated.test(section.text));
    })
    .map(({ path, default: value }) => `${path.join('.')}: default ${JSON.stringify(value)}`);
}

