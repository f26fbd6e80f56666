/**
 * The validation material of PAdES B-LT (ETSI EN 319 142-1 §5.4): every
 * certificate of the signer's and the timestamp authority's chains, and for
 * each one not self-issued its issuer's current CRL, fetched from the CRL
 * distribution point the certificate names. A certificate naming none, or a
 * CRL that cannot be fetched or is not its issuer's, fails the signing: a B-LT
 * file without it would not validate once the certificate expires.
 *
 * The URLs come from the deployer's own certificates (as the timestamp
 * authority's URL is the deployer's): fetched with the same client, over
 * http(s), bounded in time and size. OCSP is not asked: a CRL is enough for
 * every validator, and the CAs that issue document-signing certificates
 * publish one.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/** The DSS's contents: DER certificates and CRLs, each once. */
export type ValidationMaterial = { certificates: Uint8Array[]; crls: Uint8Array[] };

/** Why a certificate's revocation could not be shown: the caller turns it into its signer's or its TSA's error. */
export class RevocationUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RevocationUnavailableError';
  }
}

/** A CRL is at most this large (the CRLs of CAs that issue signing certificates are well under it). */
const MAX_CRL_BYTES = 4 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer as ArrayBuffer;
const der = (value: { toSchema: () => asn1js.AsnType }) => Buffer.from(value.toSchema().toBER(false));

/** The http(s) URLs of `certificate`'s CRL distribution points. */
function crlUrls(certificate: pkijs.Certificate): string[] {
  const extension = certificate.extensions?.find((e) => e.extnID === '2.5.29.31');
  if (!extension) return [];
  const points = new pkijs.CRLDistributionPoints({ schema: asn1js.fromBER(extension.extnValue.getValue()).result });
  return points.distributionPoints.flatMap((point) =>
    Array.isArray(point.distributionPoint)
      ? point.distributionPoint.filter((name) => name.type === 6 && /^https?:\/\//.test(String(name.value))).map((name) => String(name.value))
      : [],
  );
}

async function fetchCrl(url: string, fetcher: typeof fetch): Promise<Buffer> {
  const answer = await fetcher(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
  if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
  if (Number(answer.headers.get('content-length') ?? 0) > MAX_CRL_BYTES) throw new Error('too large');
  const body = Buffer.from(await answer.arrayBuffer());
  if (body.length > MAX_CRL_BYTES) throw new Error('too large');
  return body;
}

/** How long a fetched CRL is used again at most (and never past its nextUpdate). */
const CRL_REUSE_MS = 60 * 60 * 1000;

/** CRLs by URL, kept while fresh: one fetch per CA and hour, and one CRL in a file for a CA that issued both the signer's and the TSA's certificate. */
export type CrlCache = Map<string, { crl: Buffer; until: number }>;

/**
 * Collects the material for `chains` (DER certificates, each chain leaf
 * first): the certificates, and the CRL of each certificate's issuer.
 */
export async function validationMaterial(chains: Uint8Array[][], fetcher: typeof fetch = fetch, cache: CrlCache = new Map()): Promise<ValidationMaterial> {
  const certificates = new Map<string, pkijs.Certificate>();
  for (const bytes of chains.flat()) certificates.set(Buffer.from(bytes).toString('hex'), pkijs.Certificate.fromBER(toArrayBuffer(bytes)));
  const crls = new Map<string, Buffer>();
  // Certificates are named by their place only: a chain's names and URLs are the deployer's, not an error body's.
  for (const [index, certificate] of [...certificates.values()].entries()) {
    const issuer = der(certificate.issuer);
    if (issuer.equals(der(certificate.subject))) continue; // a root: trusted as such, no CRL speaks for it
    const subject = `certificate ${index + 1} of the chain`;
    const urls = crlUrls(certificate);
    if (urls.length === 0) throw new RevocationUnavailableError(`${subject} names no http CRL distribution point`);
    const failures: string[] = [];
    let found = false;
    for (const url of urls) {
      const cached = cache.get(url);
      if (cached && cached.until > Date.now()) {
        crls.set(url, cached.crl);
        found = true;
        break;
      }
      try {
        const body = await fetchCrl(url, fetcher);
        const crl = pkijs.CertificateRevocationList.fromBER(toArrayBuffer(body));
        if (!der(crl.issuer).equals(issuer)) throw new Error("not its issuer's CRL");
        const bytes = Buffer.from(crl.toSchema(true).toBER(false));
        crls.set(url, bytes);
        const nextUpdate = crl.nextUpdate?.value.getTime() ?? 0;
        cache.set(url, { crl: bytes, until: Math.min(nextUpdate, Date.now() + CRL_REUSE_MS) });
        found = true;
        break;
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    if (!found) throw new RevocationUnavailableError(`the CRL of ${subject} could not be fetched (${failures.join('; ')})`);
  }
  return {
    certificates: [...certificates.values()].map((certificate) => new Uint8Array(der(certificate))),
    crls: [...crls.values()].map((crl) => new Uint8Array(crl)),
  };
}

/** What of `material` is not in `known` already. */
export function newMaterial(material: ValidationMaterial, known: ValidationMaterial): ValidationMaterial {
  const hex = (item: Uint8Array) => Buffer.from(item).toString('hex');
  const seen = new Set([...known.certificates, ...known.crls].map(hex));
  return { certificates: material.certificates.filter((item) => !seen.has(hex(item))), crls: material.crls.filter((item) => !seen.has(hex(item))) };
}

/** The material of `parts` together, each certificate and CRL once. */
export function mergeMaterial(...parts: ValidationMaterial[]): ValidationMaterial {
  const unique = (items: Uint8Array[]) => [...new Map(items.map((item) => [Buffer.from(item).toString('hex'), item])).values()];
  return { certificates: unique(parts.flatMap((part) => part.certificates)), crls: unique(parts.flatMap((part) => part.crls)) };
}
