import { ApiError, api, apiJson } from './api.js';
import type { Font, FontList } from './api.js';
import { bytesToBase64 } from './base64.js';
import { clearFieldErrors, showFieldErrors } from './field-errors.js';
import { retryItem } from './retry-item.js';

export type FontsPanel = {
  /** The panel: its field messages are cleared and placed within it only. */
  box: HTMLElement;
  list: HTMLUListElement;
  form: HTMLFormElement;
  file: HTMLInputElement;
  family: HTMLInputElement;
  upload: HTMLButtonElement;
  /** Where a 400's fields that name no input of the form go. */
  errors: HTMLElement;
  status: HTMLElement;
  deleteDialog: HTMLDialogElement;
  deleteForm: HTMLFormElement;
  deleteName: HTMLElement;
};

/**
 * How long a renderer keeps an account's font list (the service's FONT_LIST_TTL_MS): an upload or a
 * delete reaches renders within this. A unit test holds the two equal.
 */
export const FONT_LIST_SECONDS = 30;

/** How the studio reports a call that failed (a token's refusal goes to the top of the page too). */
type Report = (error: unknown, where: HTMLElement) => void;

/** CSS's names of the usual weights, as font menus show them. */
const WEIGHT_NAMES: Record<number, string> = {
  100: 'Thin',
  200: 'ExtraLight',
  300: 'Light',
  400: 'Regular',
  500: 'Medium',
  600: 'SemiBold',
  700: 'Bold',
  800: 'ExtraBold',
  900: 'Black',
};

/** "Thin 100 italic", "Regular 400": the face as a page asks for it with font-weight and font-style. */
export function describeFace(font: Pick<Font, 'weight' | 'style'>): string {
  const name = WEIGHT_NAMES[font.weight];
  return `${name ? `${name} ` : ''}${font.weight}${font.style === 'normal' ? '' : ` ${font.style}`}`;
}

function describeSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** "WOFF2 → TTF" when the upload was unpacked, else its one format. */
function describeFormat(font: Pick<Font, 'format' | 'uploadedAs'>): string {
  return font.uploadedAs === font.format ? font.format.toUpperCase() : `${font.uploadedAs.toUpperCase()} → ${font.format.toUpperCase()}`;
}

function fontItem(font: Font, remove: (font: Font) => void): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'font-item';
  item.dataset.id = font.id;
  const family = document.createElement('span');
  family.className = 'font-family';
  family.textContent = font.family;
  family.title = font.family;
  const face = document.createElement('small');
  face.className = 'font-face';
  face.textContent = describeFace(font);
  const meta = document.createElement('small');
  meta.className = 'font-meta';
  const created = new Date(font.createdAt).toLocaleDateString(undefined, { dateStyle: 'short' });
  meta.textContent = `${describeFormat(font)} · ${describeSize(font.bytes)} · ${created}`;
  meta.title = `${font.glyphs} glyphs, added ${new Date(font.createdAt).toLocaleString()}`;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'font-delete danger';
  // A narrow column: a cross, named in full for screen readers and on hover.
  button.textContent = '×';
  button.title = `Delete ${font.family} (${describeFace(font)})…`;
  button.setAttribute('aria-label', `Delete the font ${font.family} ${describeFace(font)}`);
  button.addEventListener('click', () => remove(font));
  item.append(family, button, face, meta);
  return item;
}

function emptyItem(): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'empty';
  item.textContent = 'No fonts yet. Upload a brand face, or a font for a script the built-in fonts lack: every render of this account can use it.';
  return item;
}

/**
 * The fonts panel: the account's fonts (GET /v1/fonts), an upload form that
 * sends the chosen file base64 to POST /v1/fonts (its 400 fields shown beside
 * the file and family inputs), and a delete per font, asked first
 * (DELETE /v1/fonts/{id}). `load` lists them once a token is accepted,
 * `clear` forgets them when it is dropped.
 */
export function fontsPanel(panel: FontsPanel, report: Report): { load: () => Promise<void>; clear: () => void } {
  let deleting: Font | undefined;

  const say = (message: string, tone: 'ok' | 'error' | 'info' = 'info') => {
    panel.status.textContent = message;
    panel.status.dataset.tone = tone;
  };

  const confirmDelete = (font: Font) => {
    deleting = font;
    panel.deleteName.textContent = `${font.family} (${describeFace(font)})`;
    panel.deleteDialog.showModal();
  };

  const load = async () => {
    try {
      const fonts = (await apiJson<FontList>('v1/fonts')).data;
      panel.list.replaceChildren(...(fonts.length > 0 ? fonts.map((font) => fontItem(font, confirmDelete)) : [emptyItem()]));
    } catch (error) {
      report(error, panel.status);
      panel.list.replaceChildren(retryItem('The fonts could not be loaded.', () => void load()));
    }
  };

  const upload = async () => {
    const file = panel.file.files?.[0];
    if (!file) {
      showFieldErrors(panel.errors, { file: 'Choose a font file first' }, panel.box);
      return;
    }
    const family = panel.family.value.trim();
    clearFieldErrors(panel.box);
    say(`Uploading ${file.name}…`);
    panel.upload.disabled = true;
    try {
      const body = { file: bytesToBase64(new Uint8Array(await file.arrayBuffer())), ...(family ? { family } : {}) };
      const font = await apiJson<Font>('v1/fonts', { json: body });
      panel.form.reset();
      say(`Uploaded “${font.family}” (${describeFace(font)}). Renders use it within ${FONT_LIST_SECONDS} s.`, 'ok');
      await load();
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        showFieldErrors(panel.errors, error.fields, panel.box);
        say(`Not uploaded: ${error.message}.`, 'error');
      } else report(error, panel.status);
    } finally {
      panel.upload.disabled = false;
    }
  };

  panel.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void upload();
  });
  // A new choice of file is a new try: the previous refusal no longer applies.
  panel.file.addEventListener('change', () => clearFieldErrors(panel.box));

  panel.deleteDialog.querySelector('[data-close]')?.addEventListener('click', () => panel.deleteDialog.close());
  panel.deleteForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const font = deleting;
    if (!font) return;
    deleting = undefined;
    void (async () => {
      try {
        // Read the (empty) 204 to its end, so the browser does not report the request as cancelled.
        await (await api(`v1/fonts/${encodeURIComponent(font.id)}`, { method: 'DELETE' })).arrayBuffer();
        panel.deleteDialog.close();
        say(`Deleted “${font.family}” (${describeFace(font)}). Renders stop using it within ${FONT_LIST_SECONDS} s.`, 'ok');
        await load();
      } catch (error) {
        panel.deleteDialog.close();
        report(error, panel.status);
      }
    })();
  });

  const clear = () => {
    panel.list.replaceChildren();
    panel.form.reset();
    clearFieldErrors(panel.box);
    say('');
  };

  return { load, clear };
}
