/**
 * A 400's `fields` shown where a person looks for them: each message beside
 * the control whose `data-error-for` names its path (or the closest group),
 * the control marked `aria-invalid`, the rest in one list.
 */

/** Empties every field message and clears the invalid marks. */
export function clearFieldErrors(): void {
  for (const element of document.querySelectorAll<HTMLElement>('[data-error-for]')) element.textContent = '';
  for (const element of document.querySelectorAll('[aria-invalid="true"]')) element.removeAttribute('aria-invalid');
}

/** Puts each of `fields` next to the input it names (or its closest group); what names nothing on the page goes to `others`. */
export function showFieldErrors(others: HTMLElement, fields: Record<string, string>): void {
  clearFieldErrors();
  const unplaced: string[] = [];
  for (const [path, message] of Object.entries(fields)) {
    let target: HTMLElement | null = null;
    for (let parts = path.split('.'); parts.length > 0 && !target; parts = parts.slice(0, -1)) {
      target = document.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(parts.join('.'))}"]`);
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
