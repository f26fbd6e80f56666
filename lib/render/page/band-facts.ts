import type { Page } from 'puppeteer-core';
import type { BandFacts } from '../../finishing/steps/bands/bands-plan.js';
import { PlanStepError } from '../errors.js';

/** The id given to a section heading that has none, numbered in document order. */
const HEADING_ID_PREFIX = 'docrender-section-';

/**
 * Reads what the bands need of the loaded page: its title and URL, and the
 * headings `selector` matches, in document order. Each heading gets an id
 * (when it has none) and a link to it in a hidden element: Chromium writes a
 * named destination for every target of an in-page link, so the printed PDF
 * tells on which page each heading starts. Hidden links take no room: the
 * layout, and so the pages, stay what they were.
 */
export async function readBandFacts(page: Page, selector: string): Promise<BandFacts> {
  try {
    return await readFacts(page, selector);
  } catch (error) {
    if (/not a valid selector/i.test((error as Error).message)) throw new PlanStepError('sectionHeadings', 'Not a valid CSS selector', { cause: error });
    throw error;
  }
}

function readFacts(page: Page, selector: string): Promise<BandFacts> {
  return page.evaluate(
    (selector, prefix) => {
      const links = document.createElement('div');
      links.hidden = true;
      const headings = Array.from(document.querySelectorAll(selector)).map((heading, index) => {
        if (!heading.id) heading.id = prefix + index;
        const link = document.createElement('a');
        link.href = '#' + heading.id;
        links.append(link);
        return { id: heading.id, text: (heading.textContent ?? '').replace(/\s+/g, ' ').trim() };
      });
      document.body.append(links);
      return { title: document.title, url: location.href === 'about:blank' ? '' : location.href, headings };
    },
    selector,
    HEADING_ID_PREFIX,
  );
}
