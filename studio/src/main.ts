/**
 * The template studio: a token, the account's templates, an editor whose
 * every change is rendered through the real API, save, copy and render.
 */
import './studio.css';
import { ApiError, api, apiJson, describeApiError, forgetToken, storeToken, storedToken } from './api.js';
import type { Template, TemplatePage, Usage, Variables } from './api.js';
import { batchPanel } from './batch-progress.js';
import { decodeBase64, encodeBase64 } from './base64.js';
import { htmlEditor, jsonEditor, type CodeEditor } from './editors.js';
import { curlCommand } from './curl-command.js';
import { clearFieldErrors, showFieldErrors } from './field-errors.js';
import { fontsPanel } from './fonts-panel.js';
import { showMissingGlyphs } from './missing-glyphs.js';
import { showFile } from './preview.js';
import { FormJsonError, buildFieldset, fillForm, readForm, type JsonSchema } from './schema-form.js';
import { retryItem } from './retry-item.js';

const PREVIEW_DELAY_MS = 600;
const STARTER_HTML = `<!doctype html>
<html>
<head><style>body { font-family: sans-serif; margin: 2cm; } h1 { color: #3730a3; }</style></head>
<body>
  <h1>Hello {{name}}</h1>
  <p>Edit this template; the preview follows.</p>
</body>
</html>
`;
const STARTER_DATA = '{\n  "name": "World"\n}\n';

function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} missing from the page`);
  return element as T;
}

const ui = {
  tokenForm: $<HTMLFormElement>('token-form'),
  token: $<HTMLInputElement>('token'),
  forget: $<HTMLButtonElement>('forget'),
  tokenStatus: $('token-status'),
  usage: $('usage'),
  banner: $('banner'),
  workspace: $('workspace'),
  list: $<HTMLUListElement>('template-list'),
  prev: $<HTMLButtonElement>('prev-page'),
  next: $<HTMLButtonElement>('next-page'),
  pageNumber: $('page-number'),
  newTemplate: $<HTMLButtonElement>('new-template'),
  editor: $('editor'),
  templateId: $('template-id'),
  dirty: $('dirty'),
  name: $<HTMLInputElement>('template-name'),
  output: $<HTMLSelectElement>('template-output'),
  save: $<HTMLButtonElement>('save'),
  rename: $<HTMLButtonElement>('rename'),
  renderSync: $<HTMLButtonElement>('render-sync'),
  copyCurl: $<HTMLButtonElement>('copy-curl'),
  copyJson: $<HTMLButtonElement>('copy-json'),
  remove: $<HTMLButtonElement>('delete'),
  actionStatus: $('action-status'),
  options: $('options-form'),
  otherErrors: $('other-errors'),
  previewSection: $('preview-section'),
  previewStatus: $('preview-status'),
  previewError: $('preview-error'),
  preview: $('preview'),
  missingGlyphs: $('missing-glyphs'),
  createDialog: $<HTMLDialogElement>('create-dialog'),
  createForm: $<HTMLFormElement>('create-form'),
  createName: $<HTMLInputElement>('create-name'),
  createOutput: $<HTMLSelectElement>('create-output'),
  createError: $('create-error'),
  renameDialog: $<HTMLDialogElement>('rename-dialog'),
  renameForm: $<HTMLFormElement>('rename-form'),
  renameName: $<HTMLInputElement>('rename-name'),
  renameError: $('rename-error'),
  deleteDialog: $<HTMLDialogElement>('delete-dialog'),
  deleteForm: $<HTMLFormElement>('delete-form'),
  deleteName: $('delete-name'),
};

const batches = batchPanel({
  form: $<HTMLFormElement>('batch-form'),
  id: $<HTMLInputElement>('batch-id'),
  box: $('batch-progress'),
  status: $('batch-status'),
  bar: $<HTMLProgressElement>('batch-bar'),
  counts: $('batch-counts'),
  links: $('batch-links'),
});

const fonts = fontsPanel(
  {
    box: $('fonts-panel'),
    list: $<HTMLUListElement>('font-list'),
    form: $<HTMLFormElement>('font-form'),
    file: $<HTMLInputElement>('font-file'),
    family: $<HTMLInputElement>('font-family'),
    upload: $<HTMLButtonElement>('font-upload'),
    errors: $('font-errors'),
    status: $('font-status'),
    deleteDialog: $<HTMLDialogElement>('font-delete-dialog'),
    deleteForm: $<HTMLFormElement>('font-delete-form'),
    deleteName: $('font-delete-name'),
  },
  reportApiError,
);

const state: {
  listPage: number;
  current?: Template;
  savedSnapshot?: string;
  previewAbort?: AbortController;
  previewTimer?: number;
  optionsBuilt: boolean;
} = { listPage: 1, optionsBuilt: false };

const htmlSource: CodeEditor = htmlEditor($('html-editor'), 'html-label', () => edited());
const dataSource: CodeEditor = jsonEditor($('data-editor'), 'data-label', () => edited());

// --- Messages ---

function showBanner(message: string | null): void {
  ui.banner.hidden = message === null;
  ui.banner.textContent = message ?? '';
}

function say(element: HTMLElement, message: string, tone: 'ok' | 'error' | 'info' = 'info'): void {
  element.textContent = message;
  element.dataset.tone = tone;
}

/** A 400's fields (or a JSON error) beside the editor's inputs they name; the fonts panel keeps its own. */
function showEditorErrors(fields: Record<string, string>): void {
  showFieldErrors(ui.otherErrors, fields, ui.editor);
}

// --- Token and usage ---

async function refreshUsage(): Promise<void> {
  const usage = await apiJson<Usage>('v1/usage');
  const quota = usage.quota.limit === null ? `${usage.quota.used} renders this month (no quota)` : `${usage.quota.used} of ${usage.quota.limit} renders used this month`;
  ui.usage.textContent = `Plan ${usage.plan} · ${quota} · ${usage.rate.perSecond} requests/s`;
}

async function useToken(): Promise<void> {
  showBanner(null);
  say(ui.tokenStatus, 'Checking the token…');
  try {
    await refreshUsage();
  } catch (error) {
    // Said once, next to the field; a token the service does not know is not kept.
    say(ui.tokenStatus, describeApiError(error), 'error');
    if (error instanceof ApiError && error.status === 401) forgetToken();
    ui.workspace.hidden = true;
    ui.usage.textContent = '';
    return;
  }
  say(ui.tokenStatus, 'Token accepted (kept in this tab only).', 'ok');
  ui.workspace.hidden = false;
  await buildOptions();
  await Promise.all([loadList(1), fonts.load()]);
}

ui.tokenForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = ui.token.value.trim();
  if (!token) {
    say(ui.tokenStatus, 'Paste a token first.', 'error');
    return;
  }
  storeToken(token);
  ui.token.value = '';
  void useToken();
});

ui.forget.addEventListener('click', () => {
  forgetToken();
  state.previewAbort?.abort();
  batches.stop();
  fonts.clear();
  ui.workspace.hidden = true;
  ui.usage.textContent = '';
  closeTemplate();
  showBanner(null);
  say(ui.tokenStatus, 'Token forgotten.', 'ok');
  ui.token.focus();
});

/** Every call that fails for the token's sake (401, 402, 403, 429) says so at the top. */
function reportApiError(error: unknown, where: HTMLElement): void {
  if (error instanceof DOMException && error.name === 'AbortError') return;
  const message = describeApiError(error);
  if (error instanceof ApiError && [401, 402, 403, 429].includes(error.status)) showBanner(message);
  say(where, message, 'error');
}

// --- Options form, from /v1/openapi.json ---

async function buildOptions(): Promise<void> {
  if (state.optionsBuilt) return;
  const doc = (await (await fetch('v1/openapi.json')).json()) as { components: { schemas: Record<string, JsonSchema> } };
  const variables = doc.components.schemas.TemplateVariables;
  const properties = variables?.properties ?? {};
  // The editors own the Handlebars source and its data; a template may still render a url or plain html instead.
  const skip = new Set(['page.htmlTemplate', 'page.templateData']);
  const groups = [
    ['Page options', 'page'],
    ['PDF options', 'pdf'],
    ['Screenshot options', 'screenshot'],
  ] as const;
  for (const [title, key] of groups) {
    const schema = properties[key];
    if (schema) ui.options.append(buildFieldset(title, key, schema, doc, skip));
  }
  ui.options.addEventListener('input', () => edited());
  ui.options.addEventListener('change', () => edited());
  state.optionsBuilt = true;
  showOutputOptions();
}

function showOutputOptions(): void {
  const output = ui.output.value;
  for (const group of ui.options.querySelectorAll<HTMLFieldSetElement>(':scope > fieldset')) {
    group.hidden = (group.dataset.group === 'pdf' && output !== 'PDF') || (group.dataset.group === 'screenshot' && output !== 'IMAGE');
  }
}

// --- Template list ---

async function loadList(page: number): Promise<void> {
  try {
    const listing = await apiJson<TemplatePage>(`v1/templates?page=${page}`);
    state.listPage = page;
    ui.list.replaceChildren(
      ...listing.data.map((template) => {
        const item = document.createElement('li');
        const open = document.createElement('button');
        open.type = 'button';
        open.className = 'template-open';
        open.dataset.id = template.id;
        open.setAttribute('aria-current', String(state.current?.id === template.id));
        const name = document.createElement('span');
        name.className = 'template-name';
        name.textContent = template.name;
        const meta = document.createElement('small');
        meta.textContent = `${template.output} · ${new Date(template.updatedAt).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })}`;
        open.append(name, meta);
        open.addEventListener('click', () => void openTemplate(template.id));
        item.append(open);
        return item;
      }),
    );
    if (listing.data.length === 0) {
      const empty = document.createElement('li');
      empty.className = 'empty';
      empty.textContent = page === 1 ? 'No templates yet: create one.' : 'No more templates.';
      ui.list.append(empty);
    }
    ui.prev.disabled = !listing.hasPreviousPage;
    ui.next.disabled = !listing.hasNextPage;
    ui.pageNumber.textContent = `Page ${page}`;
    showBanner(null);
  } catch (error) {
    reportApiError(error, ui.actionStatus);
    ui.list.replaceChildren(retryItem('The templates could not be loaded.', () => void loadList(page)));
  }
}

ui.prev.addEventListener('click', () => void loadList(Math.max(1, state.listPage - 1)));
ui.next.addEventListener('click', () => void loadList(state.listPage + 1));

// --- Create, rename, delete ---

for (const dialog of [ui.createDialog, ui.renameDialog, ui.deleteDialog]) {
  dialog.querySelector('[data-close]')?.addEventListener('click', () => dialog.close());
}

ui.newTemplate.addEventListener('click', () => {
  ui.createForm.reset();
  ui.createError.textContent = '';
  ui.createDialog.showModal();
});

ui.createForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void (async () => {
    const output = ui.createOutput.value as 'PDF' | 'IMAGE';
    const variables: Variables = { page: { htmlTemplate: encodeBase64(STARTER_HTML), templateData: JSON.parse(STARTER_DATA) as unknown } };
    if (output === 'IMAGE') variables.screenshot = {};
    try {
      const created = await apiJson<Template>('v1/templates', { json: { name: ui.createName.value, output, variables } });
      ui.createDialog.close();
      await loadList(1);
      await openTemplate(created.id);
    } catch (error) {
      ui.createError.textContent = error instanceof ApiError && error.fields.name ? `name: ${error.fields.name}` : describeApiError(error);
    }
  })();
});

ui.rename.addEventListener('click', () => {
  if (!state.current) return;
  ui.renameName.value = ui.name.value;
  ui.renameError.textContent = '';
  ui.renameDialog.showModal();
  ui.renameName.select();
});

ui.renameForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const current = state.current;
  if (!current) return;
  void (async () => {
    try {
      const updated = await apiJson<Template>(`v1/templates/${encodeURIComponent(current.id)}`, { method: 'PUT', json: { name: ui.renameName.value } });
      ui.renameDialog.close();
      current.name = updated.name;
      ui.name.value = updated.name;
      // Only the name was saved: edits to the rest stay unsaved.
      if (state.savedSnapshot) state.savedSnapshot = JSON.stringify([updated.name, ...(JSON.parse(state.savedSnapshot) as unknown[]).slice(1)]);
      markDirty();
      say(ui.actionStatus, `Renamed to “${updated.name}”.`, 'ok');
      await loadList(state.listPage);
    } catch (error) {
      ui.renameError.textContent = error instanceof ApiError && error.fields.name ? `name: ${error.fields.name}` : describeApiError(error);
    }
  })();
});

ui.remove.addEventListener('click', () => {
  if (!state.current) return;
  ui.deleteName.textContent = state.current.name;
  ui.deleteDialog.showModal();
});

ui.deleteForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const current = state.current;
  if (!current) return;
  void (async () => {
    try {
      // Read the (empty) 204 to its end, so the browser does not report the request as cancelled.
      await (await api(`v1/templates/${encodeURIComponent(current.id)}`, { method: 'DELETE' })).arrayBuffer();
      ui.deleteDialog.close();
      closeTemplate();
      say(ui.actionStatus, `Deleted “${current.name}”.`, 'ok');
      await loadList(state.listPage);
    } catch (error) {
      ui.deleteDialog.close();
      reportApiError(error, ui.actionStatus);
    }
  })();
});

// --- Editing ---

async function openTemplate(id: string): Promise<void> {
  try {
    const template = await apiJson<Template>(`v1/templates/${encodeURIComponent(id)}`);
    state.current = template;
    const page = { ...(template.variables.page ?? {}) };
    htmlSource.set(typeof page.htmlTemplate === 'string' ? decodeBase64(page.htmlTemplate) : '');
    dataSource.set(page.templateData === undefined || page.templateData === null ? '{}' : `${JSON.stringify(page.templateData, null, 2)}\n`);
    ui.name.value = template.name;
    ui.output.value = template.output;
    ui.templateId.textContent = template.id;
    fillForm(ui.options, { page, pdf: template.variables.pdf ?? {}, screenshot: template.variables.screenshot ?? {} });
    showOutputOptions();
    ui.editor.hidden = false;
    ui.previewSection.hidden = false;
    for (const button of ui.list.querySelectorAll<HTMLButtonElement>('.template-open')) {
      button.setAttribute('aria-current', String(button.dataset.id === id));
    }
    clearFieldErrors(ui.editor);
    state.savedSnapshot = snapshot();
    markDirty();
    say(ui.actionStatus, '');
    schedulePreview(0);
  } catch (error) {
    reportApiError(error, ui.actionStatus);
  }
}

function closeTemplate(): void {
  state.current = undefined;
  state.previewAbort?.abort();
  ui.editor.hidden = true;
  ui.previewSection.hidden = true;
  ui.preview.replaceChildren();
  showMissingGlyphs(ui.missingGlyphs, null);
}

/** The template's variables as the editor holds them; throws FormJsonError on JSON that does not parse. */
function currentVariables(): Variables {
  let templateData: unknown;
  try {
    templateData = JSON.parse(dataSource.get().trim() || '{}');
  } catch (error) {
    throw new FormJsonError('page.templateData', `Not valid JSON: ${(error as Error).message}`);
  }
  const options = readForm(ui.options);
  // An empty editor leaves the page source to page.url or page.html (templateData goes only with a template);
  // a templateDataUrl given in the options brings the data instead of the editor's.
  const source = htmlSource.get();
  const byReference = typeof (options.page as Record<string, unknown> | undefined)?.templateDataUrl === 'string';
  const page = source.trim() === '' ? { ...options.page } : { ...options.page, htmlTemplate: encodeBase64(source), ...(byReference ? {} : { templateData }) };
  const variables: Variables = { page };
  if (ui.output.value === 'PDF') variables.pdf = options.pdf ?? {};
  else variables.screenshot = options.screenshot ?? {};
  return variables;
}

/**
 * The render request the preview makes: the whole template, nothing saved needed. It is a raw render, the
 * file itself, so `pdf.preview` (an image stored beside the file, answered by /sync and /async only) is
 * left out of it; the template keeps it.
 */
function currentRequest(): { path: string; body: Variables } {
  const variables = currentVariables();
  if (variables.pdf && 'preview' in variables.pdf) {
    const { preview: _stored, ...pdf } = variables.pdf;
    variables.pdf = pdf;
  }
  return { path: ui.output.value === 'PDF' ? 'v1/pdf' : 'v1/screenshot', body: variables };
}

function snapshot(): string {
  return JSON.stringify([ui.name.value, ui.output.value, htmlSource.get(), dataSource.get(), readFormSafe()]);
}

function readFormSafe(): unknown {
  try {
    return readForm(ui.options);
  } catch {
    return null;
  }
}

function markDirty(): void {
  const dirty = state.current !== undefined && snapshot() !== state.savedSnapshot;
  ui.dirty.hidden = !dirty;
  ui.renderSync.title = dirty ? 'Renders the saved template: save first to render your changes' : 'Renders the saved template through the API and opens the file';
}

function edited(): void {
  if (!state.current) return;
  markDirty();
  schedulePreview(PREVIEW_DELAY_MS);
}

ui.output.addEventListener('change', () => {
  showOutputOptions();
  edited();
});
ui.name.addEventListener('input', () => markDirty());

// --- Preview ---

function schedulePreview(delay: number): void {
  window.clearTimeout(state.previewTimer);
  state.previewTimer = window.setTimeout(() => void preview(), delay);
}

async function preview(): Promise<void> {
  state.previewAbort?.abort();
  const abort = new AbortController();
  state.previewAbort = abort;
  let request: { path: string; body: Variables };
  try {
    request = currentRequest();
  } catch (error) {
    if (error instanceof FormJsonError) {
      showEditorErrors({ [error.path]: error.message });
      say(ui.previewStatus, 'Waiting for valid JSON', 'error');
      return;
    }
    throw error;
  }
  say(ui.previewStatus, 'Rendering…');
  ui.preview.setAttribute('aria-busy', 'true');
  const started = performance.now();
  try {
    const response = await api(request.path, { json: request.body, signal: abort.signal });
    const blob = await response.blob();
    const rendered = Math.round(performance.now() - started);
    if (abort.signal.aborted) return;
    const described = await showFile(ui.preview, blob, response.headers.get('content-type') ?? blob.type);
    if (abort.signal.aborted) return;
    // Same origin, so the header is readable; it describes the file now shown, like the status line.
    showMissingGlyphs(ui.missingGlyphs, response.headers.get('x-missing-glyphs'));
    clearFieldErrors(ui.editor);
    ui.previewError.hidden = true;
    showBanner(null);
    ui.preview.dataset.renders = String(Number(ui.preview.dataset.renders ?? '0') + 1);
    say(ui.previewStatus, `Rendered in ${rendered} ms · ${described}`, 'ok');
  } catch (error) {
    if (abort.signal.aborted) return;
    if (error instanceof ApiError && error.status === 400) {
      showEditorErrors(error.fields);
      const reason = error.code === 'render.navigation' ? `The page could not be loaded: ${Object.values(error.fields).join('; ') || error.message}` : `The service refused the request (${error.code ?? 400}): see the fields marked.`;
      ui.previewError.textContent = reason;
      ui.previewError.hidden = false;
      say(ui.previewStatus, 'Not rendered', 'error');
    } else {
      ui.previewError.textContent = describeApiError(error);
      ui.previewError.hidden = false;
      reportApiError(error, ui.previewStatus);
    }
  } finally {
    if (state.previewAbort === abort) ui.preview.removeAttribute('aria-busy');
  }
}

// --- Save, copy, render ---

async function save(): Promise<void> {
  const current = state.current;
  if (!current) return;
  let variables: Variables;
  try {
    variables = currentVariables();
  } catch (error) {
    if (error instanceof FormJsonError) showEditorErrors({ [error.path]: error.message });
    say(ui.actionStatus, 'Not saved: fix the marked fields first.', 'error');
    return;
  }
  say(ui.actionStatus, 'Saving…');
  try {
    const saved = await apiJson<Template>(`v1/templates/${encodeURIComponent(current.id)}`, {
      method: 'PUT',
      json: { name: ui.name.value, output: ui.output.value, variables },
    });
    state.current = saved;
    state.savedSnapshot = snapshot();
    markDirty();
    say(ui.actionStatus, `Saved at ${new Date(saved.updatedAt).toLocaleTimeString()}.`, 'ok');
    void loadList(state.listPage);
    // The previews since the last save spent renders: show the count again.
    void refreshUsage().catch(() => undefined);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      showEditorErrors(Object.fromEntries(Object.entries(error.fields).map(([path, message]) => [path.replace(/^variables\./, ''), message])));
      say(ui.actionStatus, 'Not saved: the service refused the fields marked.', 'error');
    } else reportApiError(error, ui.actionStatus);
  }
}

ui.save.addEventListener('click', () => void save());
document.addEventListener('keydown', (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key === 's' && state.current) {
    event.preventDefault();
    void save();
  }
});

async function copy(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    say(ui.actionStatus, `Copied ${what} to the clipboard.`, 'ok');
  } catch {
    say(ui.actionStatus, `The clipboard is not available here; ${what} follows:\n${text}`, 'info');
  }
}

ui.copyCurl.addEventListener('click', () => {
  try {
    const request = currentRequest();
    const command = curlCommand(new URL(request.path, document.baseURI).href, request.body, ui.output.value === 'PDF' ? 'document.pdf' : 'screenshot.png');
    void copy(command, 'the curl command (set DOCRENDER_TOKEN first)');
  } catch (error) {
    if (error instanceof FormJsonError) showEditorErrors({ [error.path]: error.message });
  }
});

ui.copyJson.addEventListener('click', () => {
  try {
    const request = currentRequest();
    void copy(JSON.stringify(request.body, null, 2), `the JSON body of POST /${request.path}`);
  } catch (error) {
    if (error instanceof FormJsonError) showEditorErrors({ [error.path]: error.message });
  }
});

ui.renderSync.addEventListener('click', () => {
  const current = state.current;
  if (!current) return;
  say(ui.actionStatus, 'Rendering the saved template…');
  void (async () => {
    try {
      const result = await apiJson<{ id: string; fileUrl: string }>(`v1/template/${encodeURIComponent(current.id)}/sync`, { json: {} });
      const link = document.createElement('a');
      link.href = result.fileUrl;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      link.id = 'file-link';
      link.textContent = 'Open the file';
      ui.actionStatus.replaceChildren(`Rendered ${result.id}${snapshot() === state.savedSnapshot ? '' : ' (the saved version; your unsaved changes are not in it)'}. `, link);
      ui.actionStatus.dataset.tone = 'ok';
      window.open(result.fileUrl, '_blank', 'noopener,noreferrer');
      void refreshUsage().catch(() => undefined);
    } catch (error) {
      reportApiError(error, ui.actionStatus);
    }
  })();
});

// --- Start ---

if (storedToken()) void useToken();
else ui.token.focus();
