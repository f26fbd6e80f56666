/**
 * The development signer of `npm start`, made like the development token: a
 * throwaway CA, a signing certificate and a timestamp authority's certificate
 * under `.local/signing/` (DEV_SIGNING_DIR overrides), kept between restarts,
 * every name marked NOT TRUSTED; and an RFC 3161 timestamp authority on
 * loopback for level B-T, and the CA's CRL on loopback for level B-LT. What the functions get is the `signers` and
 * `timestampUrl` params a deployment would pass.
 */
import { fileURLToPath } from 'node:url';
import { devCrlServedElsewhere, loadOrCreateDevPki, startDevCrl } from '../../lib/signing/dev-pki.js';
import { localSigner } from '../../lib/signing/local-signer.js';
import { pemCertificates } from '../../lib/signing/signer.js';
import { startLocalTsa } from '../../lib/signing/timestamp.js';

const SIGNING_DIR = fileURLToPath(new URL('../../.local/signing/', import.meta.url));

/** The name the development signer is configured and granted under. */
export const DEV_SIGNER = 'default';

export type DevSigning = {
  folder: string;
  created: boolean;
  /** serverless.yml params: the development signer as `default`, the loopback timestamp authority. */
  params: { signers: string; timestampUrl: string };
  /** Where the development CA's CRL is served (the certificates' CRL distribution point). */
  crlUrl: string;
  stop: () => Promise<void>;
};

/** Loads (or creates) the development PKI and starts its timestamp authority on 127.0.0.1. */
export async function startDevSigning(env: NodeJS.ProcessEnv = process.env): Promise<DevSigning> {
  const folder = env.DEV_SIGNING_DIR || SIGNING_DIR;
  const pki = await loadOrCreateDevPki(folder);
  const ca = pemCertificates(pki.ca.certificatePem);
  // The CA's CRL on the loopback port its certificates name (kept with the PKI), for B-LT.
  // Another npm start of this checkout may serve it already (several side by side): then it is shared, and
  // B-LT renders of this one need that one running.
  const crl = await startDevCrl(pki).catch(async (error: unknown) => {
    if (await devCrlServedElsewhere(pki)) return { close: async () => undefined };
    throw new Error(`The development CA's CRL could not be served at ${pki.crlUrl} (is that port taken? delete ${folder} to get a new PKI)`, { cause: error });
  });
  const tsa = await startLocalTsa(localSigner(pki.tsa.privateKeyPem, [...pemCertificates(pki.tsa.certificatePem), ...ca])).catch(async (error: unknown) => {
    await crl.close();
    throw error;
  });
  return {
    folder,
    created: pki.created,
    params: { signers: JSON.stringify({ [DEV_SIGNER]: { kind: 'local', folder } }), timestampUrl: tsa.url },
    crlUrl: pki.crlUrl,
    stop: async () => {
      await tsa.close();
      await crl.close();
    },
  };
}
