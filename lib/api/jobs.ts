import type { AppDeps } from '../bootstrap/app-deps.js';
import { NotFoundError } from '../errors.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json } from '../http/responses.js';
import { isJobId } from '../jobs/job-ids.js';
import { jobResponse } from '../jobs/job-response.js';

type JobDeps = Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage' | 'jobs' | 'files'>;

/** `GET /v1/jobs/{id}`: the caller's job; another account's id is a 404 like an unknown one. */
export function getJobEndpoint(deps: JobDeps) {
  return httpEndpoint(
    {
      name: 'job-get',
      handle: async ({ caller, params }) => {
        const id = params.id ?? '';
        const job = isJobId(id) ? await deps.jobs.get({ accountId: caller.accountId, jobId: id }) : undefined;
        if (!job) throw new NotFoundError('Job not found');
        return json(200, await jobResponse(job, { files: deps.files, lifetimeSeconds: deps.config.fileLifetimeSeconds }));
      },
    },
    deps,
  );
}
