import { apiJson, describeApiError } from './api.js';

/** GET /v1/batches/{id}'s answer, as far as the panel shows it. */
type Batch = { id: string; status: string; total: number; counts: Record<'done' | 'failed' | 'pending', number> } & Partial<
  Record<'manifestUrl' | 'zipUrl' | 'mergedUrl', string | null>
>;

/** How often a running batch is asked again. */
const POLL_MS = 2000;

export type BatchPanel = {
  form: HTMLFormElement;
  id: HTMLInputElement;
  box: HTMLElement;
  status: HTMLElement;
  bar: HTMLProgressElement;
  counts: HTMLElement;
  links: HTMLElement;
};

function link(href: string, text: string): HTMLAnchorElement {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  return a;
}

function show(panel: BatchPanel, batch: Batch): void {
  const finished = batch.counts.done + batch.counts.failed;
  panel.status.textContent = `${batch.id}: ${batch.status}`;
  panel.status.dataset.status = batch.status;
  panel.bar.max = batch.total;
  panel.bar.value = finished;
  panel.counts.textContent = `${finished} of ${batch.total} finished · ${batch.counts.done} done · ${batch.counts.failed} failed · ${batch.counts.pending} pending`;
  const links = [
    batch.manifestUrl ? link(batch.manifestUrl, 'Manifest') : null,
    batch.zipUrl ? link(batch.zipUrl, 'Archive (ZIP)') : null,
    batch.mergedUrl ? link(batch.mergedUrl, 'Merged PDF') : null,
  ].filter((a): a is HTMLAnchorElement => a !== null);
  panel.links.replaceChildren(...links);
}

/**
 * The batch panel: a batch id typed in is polled (GET /v1/batches/{id})
 * every 2 s, its status, counts and a progress bar shown, until it has ended
 * (its manifest's URL is there): then the manifest, archive and merged PDF
 * are links. Watching another id stops the previous one.
 */
export function batchPanel(panel: BatchPanel): { stop: () => void } {
  let timer: number | undefined;
  let watching = 0;
  const stop = () => {
    watching += 1;
    window.clearTimeout(timer);
  };
  const poll = async (id: string, run: number) => {
    try {
      const batch = await apiJson<Batch>(`v1/batches/${encodeURIComponent(id)}`);
      if (run !== watching) return;
      show(panel, batch);
      if (batch.manifestUrl === undefined) timer = window.setTimeout(() => void poll(id, run), POLL_MS);
    } catch (error) {
      if (run !== watching) return;
      panel.status.textContent = describeApiError(error);
      panel.status.dataset.status = 'error';
    }
  };
  panel.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = panel.id.value.trim();
    if (!id) return;
    stop();
    panel.box.hidden = false;
    panel.status.textContent = `${id}: asking…`;
    panel.counts.textContent = '';
    panel.links.replaceChildren();
    void poll(id, watching);
  });
  return { stop };
}
