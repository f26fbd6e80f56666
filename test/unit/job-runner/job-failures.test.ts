import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { permanentFailure } from '../../../lib/job-runner/job-failures.js';
import { renderOutcomeOf } from '../../../lib/observability/metrics.js';
import { SignerNotGrantedError, SignerUnavailableError, TimestampAuthorityError } from '../../../lib/signing/errors.js';

describe("a job's failure › the signing errors", () => {
  it('ends a job whose signer or timestamp authority failed with the same code and message the HTTP answer has, rather than retrying it', () => {
    // Prepare
    const signer = new SignerUnavailableError('legal', 'DisabledException');
    const authority = new TimestampAuthorityError('answered HTTP 500');

    // Act
    const failures = [permanentFailure(signer), permanentFailure(authority)];

    // Assess
    assert.deepEqual(failures, [
      { code: 'render.signer_unavailable', message: 'The signer "legal" could not sign the document (DisabledException)' },
      { code: 'render.timestamp_unavailable', message: 'The timestamp authority answered HTTP 500' },
    ]);
  });

  it("counts a signer or timestamp authority failing as the service's error and a signer not granted as refused, as their statuses say", () => {
    // Act
    const outcomes = [new SignerUnavailableError('legal', 'x'), new TimestampAuthorityError('unreachable'), new SignerNotGrantedError('legal')].map(renderOutcomeOf);

    // Assess
    assert.deepEqual(outcomes, ['error', 'error', 'rejected']);
  });
});
