/**
 * The deployer's signers, from the `SIGNERS` setting (JSON; serverless.yml
 * passes the `signers` parameter), and the timestamp authority from
 * `TIMESTAMP_URL`. A signer is named by the caller (`pdf.signature.signer`)
 * and described here only: where its key is, where its chain is.
 *
 * - `{"kind":"kms","keyId":"arn:aws:kms:…:key/…","chain":"ssm:/docrender/signers/default/chain"}`
 *   (or `"chain":"s3://bucket/key.pem"`): the key in AWS KMS, the PEM chain beside it;
 * - `{"kind":"pkcs12","secret":"arn:aws:secretsmanager:…"}`: a secret whose string is
 *   `{"pkcs12":"<base64>","password":"…"}`;
 * - `{"kind":"local","folder":".local/signing"}`: the development signer `npm start` makes (never on AWS).
 */
import * as v from 'valibot';

const Text = v.pipe(v.string(), v.minLength(1));
const ChainSource = v.pipe(Text, v.regex(/^(ssm:\/.+|s3:\/\/[^/]+\/.+)$/, 'must be ssm:/<parameter name> or s3://<bucket>/<key>'));

const SignerConfigSchema = v.variant('kind', [
  v.strictObject({ kind: v.literal('kms'), keyId: Text, chain: ChainSource }),
  v.strictObject({ kind: v.literal('pkcs12'), secret: Text }),
  v.strictObject({ kind: v.literal('local'), folder: Text }),
]);

/** The names callers use: letters, digits, `-` and `_`, as the token CLI's `--signers` takes them. */
export const SIGNER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const SignersSchema = v.pipe(
  v.record(v.pipe(v.string(), v.regex(SIGNER_NAME, 'signer names are letters, digits, - and _')), SignerConfigSchema),
  v.maxEntries(100),
);

export type SignerConfig = v.InferOutput<typeof SignerConfigSchema>;

/** The signing set-up of a deployment: its signers by name, and its timestamp authority if any. */
export type SigningConfig = { signers: Record<string, SignerConfig>; timestampUrl?: string };

/**
 * Reads `SIGNERS` and `TIMESTAMP_URL`; a problem is thrown with the setting
 * named (never its value: it names keys and secrets).
 */
export function readSigningConfig(signers: string, timestampUrl: string): SigningConfig {
  let parsed: unknown = {};
  if (signers.trim() !== '') {
    try {
      parsed = JSON.parse(signers);
    } catch {
      throw new Error('SIGNERS must be a JSON object of signers by name');
    }
  }
  const result = v.safeParse(SignersSchema, parsed);
  if (!result.success) {
    throw new Error(`SIGNERS is invalid: ${result.issues.map((issue) => `${v.getDotPath(issue) ?? '?'} ${issue.message}`).join('; ')}`);
  }
  if (timestampUrl !== '' && !/^https?:\/\/[^\s]+$/.test(timestampUrl)) throw new Error('TIMESTAMP_URL must be an http(s) URL');
  return { signers: result.output, ...(timestampUrl ? { timestampUrl } : {}) };
}
