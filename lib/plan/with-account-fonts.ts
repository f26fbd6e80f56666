import type { PageFontsPlan } from '../fonts/user-fonts/page-fonts.js';
import type { DocumentPlan, PagePlan } from '../render/render-plan.js';

/**
 * Gives the account's fonts to every page a document plan prints (a render,
 * each printed part of a merge) and to the finishing of a merge or a
 * processed PDF, whose stamps and bands are drawn with them too.
 */
export function withAccountFonts(plan: DocumentPlan, fonts: PageFontsPlan | undefined): void {
  if (!fonts) return;
  const give = (page: PagePlan) => {
    page.fonts = fonts;
  };
  if ('process' in plan) {
    plan.fonts = fonts;
    return;
  }
  if ('merge' in plan) {
    plan.fonts = fonts;
    for (const part of plan.parts) if ('plan' in part) give(part.plan.page);
    return;
  }
  give(plan.page);
}
