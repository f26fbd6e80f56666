/**
 * A 400's `fields` shown where a person looks for them: each message beside
 * the control whose `data-error-for` names its path (or the closest group),
 * the control marked `aria-invalid`, the rest in one list. Each form passes
 * its own `scope`, so the editor's messages and the fonts panel's never
 * clear or take each other's places.
 */

/** Empties every field message in `scope` and clears its invalid marks. */
export function clearFieldErrors(scope: ParentNode = document): void {
  for (const element of scope.querySelectorAll<HTMLElement>('[data-error-for]')) element.textContent = '';
  for (const element of scope.querySelectorAll('[aria-invalid="true"]')) element.removeAttribute('aria-invalid');
}

/** Puts each of `fields` next to the input in `scope` it names (or its closest group); what names nothing there goes to `others`. */
export function showFieldErrors(others: HTMLElement, fields: Record<string, string>, scope: ParentNode = document): void {
  clearFieldErrors(scope);
  const unplaced: string[] = [];
  for (const [path, message] of Object.entries(fields)) {
    let target: HTMLElement | null = null;
    for (let parts = path.split('.'); parts.length > 0 && !target; parts = parts.slice(0, -1)) {
      target = scope.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(parts.join('.'))}"]`);
    }
    if (!target || target === others) {
      unplaced.push(`${path}: ${message}`);
      continue;
    }
    target.textContent = target.textContent ? `${target.textContent}; ${message}` : message;
    target.closest('.option, .field')?.querySelector('[data-path], .cm-content')?.setAttribute('aria-invalid', 'true');
    const group = target.closest('details');
    if (group) group.open = true;
  }
  others.textContent = unplaced.join('\n');
}
