import type { PageFontsPlan } from '../fonts/user-fonts/page-fonts.js';
import type { DocumentPlan, PagePlan } from '../render/render-plan.js';

/** Gives every page a document plan prints (a render, each printed part of a merge) the account's fonts. */
export function withAccountFonts(plan: DocumentPlan, fonts: PageFontsPlan | undefined): void {
  if (!fonts) return;
  const give = (page: PagePlan) => {
    page.fonts = fonts;
  };
  if ('process' in plan) return;
  if ('merge' in plan) {
    for (const part of plan.parts) if ('plan' in part) give(part.plan.page);
    return;
  }
  give(plan.page);
}
