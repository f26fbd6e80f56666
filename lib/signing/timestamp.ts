/**
 * RFC 3161 timestamps: the client that asks the deployer's timestamp
 * authority for a token over a signature value (PAdES B-T), and the local
 * authority `npm start` and the tests run on loopback.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { digestOf, OID, parseDer, sha256, signedData } from './cms.js';
import { TimestampAuthorityError } from './errors.js';
import type { Signer } from './signer.js';

const buffer = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer as ArrayBuffer;

/** The policy the development authority names in its tokens: an arbitrary OID, as nothing trusts it. */
const DEV_TSA_POLICY = '1.3.6.1.4.1.4146.2.3.999';

/**
 * Asks `url` for a timestamp token over `data`; answers the token's DER.
 * A failure to reach the authority, or an answer that is no granted token
 * over this very digest with this request's nonce, is TimestampAuthorityError.
 */
export async function requestTimestamp(url: string, data: Uint8Array, fetcher: typeof fetch = fetch, timeoutMs = 10_000): Promise<Uint8Array> {
  const digest = sha256(data);
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0] ?? 0) & 0x7f;
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: buffer(digest) }),
    }),
    nonce: new asn1js.Integer({ valueHex: buffer(nonce) }),
    certReq: true,
  });
  const body = new Uint8Array(request.toSchema().toBER(false));
  const signal = AbortSignal.timeout(timeoutMs);
  const post = () => fetcher(url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body, signal });
  let answer: Response;
  try {
    // A kept-alive connection the authority closed while this instance was idle (or frozen, on Lambda) fails
    // the request before it is sent: asking again, within the same time limit, is safe (a token is asked, not spent).
    answer = await post().catch((error: unknown) => {
      if (signal.aborted) throw error;
      return post();
    });
  } catch (error) {
    throw new TimestampAuthorityError('unreachable', { cause: error });
  }
  if (!answer.ok) throw new TimestampAuthorityError(`answered HTTP ${answer.status}`);
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(await answer.arrayBuffer());
  } catch (error) {
    throw new TimestampAuthorityError('answered no timestamp response', { cause: error });
  }
  const status = response.status.status;
  if ((status !== 0 && status !== 1) || !response.timeStampToken) throw new TimestampAuthorityError(`refused the request (status ${status})`);
  const token = response.timeStampToken;
  const info = pkijs.TSTInfo.fromBER((new pkijs.SignedData({ schema: token.content }).encapContentInfo.eContent as asn1js.OctetString).getValue());
  const imprint = Buffer.from(info.messageImprint.hashedMessage.getValue());
  const echoed = info.nonce ? Buffer.from(info.nonce.valueBlock.valueHexView) : undefined;
  if (!imprint.equals(digest) || !echoed || !echoed.equals(nonce)) throw new TimestampAuthorityError('answered a token for another request');
  return new Uint8Array(token.toSchema().toBER(false));
}

/** The certificates a timestamp token carries (its authority's chain, as asked with certReq), DER. */
export function tokenCertificates(token: Uint8Array): Uint8Array[] {
  const signed = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: parseDer(token, 'The timestamp token') }).content });
  return (signed.certificates ?? []).flatMap((certificate) =>
    certificate instanceof pkijs.Certificate ? [new Uint8Array(certificate.toSchema().toBER(false))] : [],
  );
}

/**
 * A timestamp authority on loopback, for development and tests: answers every
 * well-formed request with a token signed by `signer` (the development TSA
 * certificate, extended key usage timeStamping).
 */
export async function startLocalTsa(signer: Signer, port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 64 * 1024) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      timestampResponse(signer, Buffer.concat(chunks)).then(
        (body) => res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body),
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function timestampResponse(signer: Signer, body: Uint8Array): Promise<Uint8Array> {
  const request = new pkijs.TimeStampReq({ schema: parseDer(body, 'The timestamp request') });
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const info = new pkijs.TSTInfo({
    version: 1,
    policy: DEV_TSA_POLICY,
    messageImprint: request.messageImprint,
    serialNumber: new asn1js.Integer({ valueHex: buffer(serial) }),
    genTime: new Date(),
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
  const content = new Uint8Array(info.toSchema().toBER(false));
  const token = await signedData({ messageDigest: digestOf(content, signer.digest), signer, eContentType: OID.tstInfo, eContent: content });
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: 0 }),
    timeStampToken: new pkijs.ContentInfo({ schema: parseDer(token, 'The token') }),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}
