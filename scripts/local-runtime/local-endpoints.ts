/** Where each emulated AWS service answers. */
export type EmulatorEndpoints = { dynamodb: string; s3: string; sqs: string };

/**
 * The environment that points the AWS SDK at running emulators: endpoint
 * variables the SDK reads itself, a region, and dummy credentials (the
 * emulators accept any, and real ones must never reach them).
 */
export function emulatorEnvironment(endpoints: EmulatorEndpoints, region: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
}
