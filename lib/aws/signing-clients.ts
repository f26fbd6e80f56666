import { KMSClient } from '@aws-sdk/client-kms';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { Config } from '../config.js';
import type { SigningClients } from '../signing/signers.js';
import { createS3Client } from './s3-client.js';

/**
 * The SDK clients the signers use (KMS `Sign`, the chain from SSM Parameter
 * Store or S3, a PKCS#12 from Secrets Manager), each built on its first use: a deployment whose signers are
 * all KMS with SSM chains never builds the S3 one here. Endpoints come from
 * the SDK's own `AWS_ENDPOINT_URL_KMS` / `_SSM` / `_SECRETS_MANAGER` (the tests' moto server).
 */
export function signingClients(config: Pick<Config, 'region'>, env: NodeJS.ProcessEnv = process.env): SigningClients {
  let kms: KMSClient | undefined;
  let ssm: SSMClient | undefined;
  let s3: ReturnType<typeof createS3Client> | undefined;
  let secrets: SecretsManagerClient | undefined;
  return {
    secrets: () => (secrets ??= new SecretsManagerClient({ region: config.region })),
    kms: () => (kms ??= new KMSClient({ region: config.region })),
    ssm: () => (ssm ??= new SSMClient({ region: config.region })),
    s3: () => (s3 ??= createS3Client(config, env)),
  };
}
