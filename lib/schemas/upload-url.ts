import * as v from 'valibot';
import { MAX_URL_LENGTH, publicHttpUrl } from '../validation/http-url.js';
import { S3_KEY_PATTERN } from '../validation/http-url-pattern.js';

/**
 * A file by reference (a batch's itemsUrl, a page's templateDataUrl): an
 * http(s) URL that the egress policy allows, or `s3://<bucket>/<key>` of the
 * caller's own uploads (lib/files/caller-uploads.ts checks the bucket and
 * the prefix when it reads it). `what` names it in a refused URL's message.
 */
export function uploadOrHttpUrl(what: string, description: string) {
  const publicUrl = publicHttpUrl(what);
  return v.pipe(
    v.string('Must be a string'),
    v.trim(),
    v.maxLength(MAX_URL_LENGTH, `Must be at most ${MAX_URL_LENGTH} characters`),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const url = dataset.value;
      if (/^s3:/iu.test(url)) {
        if (!S3_KEY_PATTERN.test(url)) addIssue({ message: 'Must be s3://<bucket>/<key> (the bucket in lower case)' });
        return;
      }
      const checked = v.safeParse(publicUrl, url);
      if (!checked.success) addIssue({ message: checked.issues[0].message });
    }),
    v.metadata({ description }),
  );
}
