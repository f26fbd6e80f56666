import type { AppDeps } from '../bootstrap/app-deps.js';
import { isBatchId } from '../batches/batch-ids.js';
import { batchResponse } from '../batches/batch-response.js';
import type { Batch } from '../batches/batch-store.js';
import { readItemsUrl } from '../batches/item-source.js';
import { prepareBatch, type PreparedItem } from '../batches/prepare-batch.js';
import { submitBatch } from '../batches/submit-batch.js';
import { NotFoundError } from '../errors.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json } from '../http/responses.js';
import { checkSignerGranted } from '../plan/signature-check.js';
import { BatchRequestSchema, checkOutputCap } from '../schemas/batch-requests.js';
import { getTemplate } from '../templates/templates.js';
import { prepareRender, refusePreview, type Prepared } from './render-endpoints.js';

type BatchDeps = Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage' | 'jobs' | 'batches' | 'batchPlans' | 'batchQueue' | 'templates' | 'files'>;

/**
 * `POST /v1/batches`: every item checked and planned as its own endpoint
 * would (400 naming `items.<n>.…`, nothing queued), one quota unit per item
 * spent at once (402, nothing queued), then the batch recorded and fanned
 * out; 202 `{ id, status: "PENDING", total }`.
 */
export function createBatchEndpoint(deps: BatchDeps) {
  return httpEndpoint(
    {
      name: 'batch-create',
      schema: BatchRequestSchema,
      // Items may name templates: the caller's account must be known to load them.
      readsAccount: true,
      spendsQuota: (items: PreparedItem<Prepared>[]) => items.length,
      prepare: async ({ body, caller }) => {
        const items = body.items ?? (await readItemsUrl(body.itemsUrl ?? '', caller.accountId, { files: deps.files, filesBucket: deps.config.filesBucket }));
        checkOutputCap(body.output, items.length);
        return prepareBatch({ items, defaults: body.defaults }, (id) => getTemplate(deps.templates, caller.accountId, id), async (input) => {
          const prepared = await prepareRender(input, deps.config);
          refusePreview(prepared.plan, 'Not in a batch: its manifest lists each item\'s file; ask /v1/pdf/sync or /async for a preview');
          return prepared;
        });
      },
      handle: async ({ body, caller, spend }, _loaded, items) => {
        for (const item of items) checkSignerGranted(item.prepared.plan, caller.token);
        const batch = await submitBatch(deps, {
          accountId: caller.accountId,
          tokenHash: caller.token.tokenHash,
          spend,
          items,
          output: { zip: body.output?.zip === true, merge: body.output?.merge === true },
          storage: body.storage ?? null,
          webhook: body.webhook ?? null,
        });
        return json(202, { id: batch.batchId, status: 'PENDING', total: batch.total }, { location: `/v1/batches/${batch.batchId}` });
      },
    },
    deps,
  );
}

/** The caller's batch; another account's id is a 404 like an unknown one. */
async function callersBatch(deps: Pick<BatchDeps, 'batches'>, accountId: string, id: string): Promise<Batch> {
  const batch = isBatchId(id) ? await deps.batches.get({ accountId, batchId: id }) : undefined;
  if (!batch) throw new NotFoundError('Batch not found');
  return batch;
}

/** `GET /v1/batches/{id}`: status, counts, and once ended the manifest's URL. */
export function getBatchEndpoint(deps: BatchDeps) {
  return httpEndpoint(
    {
      name: 'batch-get',
      handle: async ({ caller, params }) => {
        const batch = await callersBatch(deps, caller.accountId, params.id ?? '');
        return json(200, await batchResponse(batch, { files: deps.files, lifetimeSeconds: deps.config.fileLifetimeSeconds }));
      },
    },
    deps,
  );
}

/**
 * `DELETE /v1/batches/{id}`: the items not yet started end as `batch.cancelled`
 * (their units given back) instead of rendering; those under way finish. The
 * batch ends CANCELLED once the last one has, with its manifest and webhook.
 * A batch that has ended is answered as it stands.
 */
export function cancelBatchEndpoint(deps: BatchDeps) {
  return httpEndpoint(
    {
      name: 'batch-cancel',
      handle: async ({ caller, params }) => {
        const found = await callersBatch(deps, caller.accountId, params.id ?? '');
        const batch = (await deps.batches.cancel(found, Date.now())) ?? found;
        return json(200, await batchResponse(batch, { files: deps.files, lifetimeSeconds: deps.config.fileLifetimeSeconds }));
      },
    },
    deps,
  );
}
