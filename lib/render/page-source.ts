import { ValidationError } from '../errors.js';
import type { PageOptionsOutput } from '../schemas/render-options.js';
import { decodeBase64Text } from '../schemas/base64-text.js';
import { renderHandlebars } from './handlebars.js';

/** What the browser loads: a URL to visit, or HTML to set as the document. */
export type PageSource =
  | { kind: 'url'; url: string; field: 'page.url' }
  | { kind: 'html'; html: string; field: 'page.html' | 'page.htmlTemplate' };

/**
 * Picks the page source out of the page options: `url`, base64 `html`, or a
 * base64 Handlebars `htmlTemplate` filled with `templateData`.
 */
export function resolvePageSource(page: PageOptionsOutput): PageSource {
  if (page.url != null) {
    if (!/^https?:\/\//i.test(page.url)) throw new ValidationError({ 'page.url': 'Must be an http or https URL' });
    return { kind: 'url', url: page.url, field: 'page.url' };
  }
  if (page.html != null) {
    try {
      return { kind: 'html', html: decodeBase64Text(page.html), field: 'page.html' };
    } catch (error) {
      throw new ValidationError({ 'page.html': (error as Error).message }, { cause: error });
    }
  }
  if (page.htmlTemplate != null) {
    return { kind: 'html', html: renderHandlebars(page.htmlTemplate, page.templateData ?? {}), field: 'page.htmlTemplate' };
  }
  throw new ValidationError({ 'page.url': 'Give one of page.url, page.html or page.htmlTemplate' });
}
