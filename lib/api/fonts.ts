import type { AppDeps } from '../bootstrap/app-deps.js';
import { readFontUpload } from './font-upload.js';
import { createFont, deleteFont, fontResponse, getFont } from '../fonts/user-fonts/user-fonts.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json, noContent } from '../http/responses.js';

type FontDeps = Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage' | 'fonts' | 'files'>;

/**
 * `POST /v1/fonts`: 201 with the font, checked and kept for the caller's account. The body is
 * the file itself (Content-Type font/…) or JSON, so the stack parses none (no `schema`): readFontUpload does.
 */
export function createFontEndpoint(deps: FontDeps) {
  return httpEndpoint(
    {
      name: 'font-create',
      handle: async ({ event, caller, query }) => {
        const upload = await readFontUpload(event, query, caller.accountId, { files: deps.files, filesBucket: deps.config.filesBucket, maxBodyBytes: deps.config.maxBodyBytes });
        const font = await createFont(deps.fonts, caller.accountId, upload);
        return json(201, fontResponse(font), { location: `/v1/fonts/${font.id}` });
      },
    },
    deps,
  );
}

/** `GET /v1/fonts`: every font of the account, oldest first (at most MAX_FONTS_PER_ACCOUNT: one page). */
export function listFontsEndpoint(deps: FontDeps) {
  return httpEndpoint(
    {
      name: 'font-list',
      handle: async ({ caller }) => json(200, { data: (await deps.fonts.list(caller.accountId)).map(fontResponse) }),
    },
    deps,
  );
}

/** `GET /v1/fonts/{id}`: the font's record (not its file). */
export function getFontEndpoint(deps: FontDeps) {
  return httpEndpoint(
    {
      name: 'font-get',
      handle: async ({ caller, params }) => json(200, fontResponse(await getFont(deps.fonts, caller.accountId, params.id ?? ''))),
    },
    deps,
  );
}

/** `DELETE /v1/fonts/{id}`: 204; renders from then on no longer have it (a warm renderer forgets it within FONT_LIST_TTL_MS). */
export function deleteFontEndpoint(deps: FontDeps) {
  return httpEndpoint(
    {
      name: 'font-delete',
      handle: async ({ caller, params }) => {
        await deleteFont(deps.fonts, caller.accountId, params.id ?? '');
        return noContent();
      },
    },
    deps,
  );
}
