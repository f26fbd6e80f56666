/**
 * The endpoint URL the SDK will use for `service` instead of AWS's, read the
 * way the SDK reads it (service-specific variable first), or undefined.
 */
export function endpointOverride(env: NodeJS.ProcessEnv, service: 'DYNAMODB' | 'S3' | 'SQS'): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true') return undefined;
  return env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL || undefined;
}
