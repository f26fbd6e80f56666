/**
 * The deployment's signers by name, made on first use and kept for the
 * instance's life: a KMS signer reads its chain once (SSM Parameter Store or
 * S3), the development signer its folder once. The AWS clients come from the
 * caller (lib/aws/clients.ts makes them), built only when a signer needs one.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { KMSClient } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignerUnavailableError } from './errors.js';
import { kmsSigner } from './kms-signer.js';
import { localSigner } from './local-signer.js';
import { pkcs12Signer } from './pkcs12-signer.js';
import { pemCertificates, type Signer } from './signer.js';
import type { SignerConfig, SigningConfig } from './signing-config.js';
import { requestTimestamp } from './timestamp.js';
import { validationMaterial, type CrlCache, type ValidationMaterial } from './validation-material.js';

/** The AWS clients signers use, each built on first call. */
export type SigningClients = { kms: () => KMSClient; ssm: () => SSMClient; s3: () => S3Client; secrets: () => SecretsManagerClient };

/** What the finishing stage signs with. */
export type SignerRegistry = {
  /** The signer named `name` (configured: the plan was checked at the edge). */
  signer: (name: string) => Promise<Signer>;
  /** A timestamp token over `data` from the configured authority; absent when none is configured. */
  timestamp?: (data: Uint8Array) => Promise<Uint8Array>;
  /** The B-LT validation material of `chains` (DER, leaf first): the certificates and their issuers' CRLs, fetched. */
  validationMaterial: (chains: Uint8Array[][]) => Promise<ValidationMaterial>;
};

/** Reads the PEM chain at `source` (ssm:/name or s3://bucket/key). */
async function readChain(name: string, source: string, clients: SigningClients): Promise<Uint8Array[]> {
  let pem: string | undefined;
  try {
    if (source.startsWith('ssm:')) {
      const answer = await clients.ssm().send(new GetParameterCommand({ Name: source.slice('ssm:'.length), WithDecryption: true }));
      pem = answer.Parameter?.Value;
    } else {
      const [bucket, ...key] = source.slice('s3://'.length).split('/');
      const answer = await clients.s3().send(new GetObjectCommand({ Bucket: bucket, Key: key.join('/') }));
      pem = await answer.Body?.transformToString('utf8');
    }
  } catch (error) {
    throw new SignerUnavailableError(name, `reading its certificate chain failed: ${(error as Error).name || 'Error'}`);
  }
  const chain = pemCertificates(pem ?? '');
  if (chain.length === 0) throw new SignerUnavailableError(name, 'its certificate chain holds no PEM certificate');
  return chain;
}

/**
 * The PKCS#12 signer whose secret's string is `{"pkcs12": "<base64>", "password": "…"}`: read once,
 * opened in memory. Neither the file nor the password reaches an error (the reason is the kind of failure only).
 */
async function readPkcs12(name: string, secretId: string, clients: SigningClients): Promise<Signer> {
  let text: string | undefined;
  try {
    text = (await clients.secrets().send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    throw new SignerUnavailableError(name, `reading its secret failed: ${(error as Error).name || 'Error'}`);
  }
  let secret: { pkcs12?: unknown; password?: unknown };
  try {
    secret = JSON.parse(text ?? '') as typeof secret;
  } catch {
    throw new SignerUnavailableError(name, 'its secret is not JSON {"pkcs12": "<base64>", "password": "…"}');
  }
  if (typeof secret.pkcs12 !== 'string' || typeof secret.password !== 'string') {
    throw new SignerUnavailableError(name, 'its secret is not JSON {"pkcs12": "<base64>", "password": "…"}');
  }
  try {
    return await pkcs12Signer(new Uint8Array(Buffer.from(secret.pkcs12, 'base64')), secret.password);
  } catch {
    throw new SignerUnavailableError(name, 'its PKCS#12 could not be opened (a wrong password, a damaged or legacy RC2/3DES file, or no key and certificate in it)');
  }
}

async function makeSigner(name: string, config: SignerConfig, clients: SigningClients): Promise<Signer> {
  switch (config.kind) {
    case 'kms':
      return kmsSigner({ name, kms: clients.kms(), keyId: config.keyId, chain: await readChain(name, config.chain, clients) });
    case 'local': {
      const read = (file: string) => readFileSync(join(config.folder, file), 'utf8');
      return localSigner(read('signer.key.pem'), [...pemCertificates(read('signer.cert.pem')), ...pemCertificates(read('ca.cert.pem'))]);
    }
    case 'pkcs12':
      return readPkcs12(name, config.secret, clients);
  }
}

/** The registry of `config`'s signers. */
export function signerRegistry(config: SigningConfig, clients: SigningClients, fetcher: typeof fetch = fetch): SignerRegistry {
  const made = new Map<string, Promise<Signer>>();
  const crls: CrlCache = new Map();
  const { timestampUrl } = config;
  return {
    signer: (name) => {
      const existing = made.get(name);
      if (existing) return existing;
      const signerConfig = config.signers[name];
      if (!signerConfig) return Promise.reject(new Error(`No signer named ${name} is configured`));
      const making = makeSigner(name, signerConfig, clients);
      // A failure is not kept: the next render tries again (a throttled KMS, a chain written late).
      making.catch(() => made.delete(name));
      made.set(name, making);
      return making;
    },
    ...(timestampUrl ? { timestamp: (data: Uint8Array) => requestTimestamp(timestampUrl, data, fetcher) } : {}),
    validationMaterial: (chains) => validationMaterial(chains, fetcher, crls),
  };
}
