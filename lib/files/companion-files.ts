/**
 * Images stored beside a rendered file (issue 34): each page's image when the
 * file is the ZIP of several page images, and a PDF's preview. They are
 * temporary files like the file itself (same lifetime, same sweeper), and the
 * answers give their URLs: `fileUrls` and `previewUrl`.
 */
import type { FileStore, StoredFile } from './file-store.js';
import { temporaryFileUrl } from './temporary-files.js';

/** An image beside a file, as stored: the page it shows, its pixel size, and the file. */
export type StoredImage = { page: number; width: number; height: number; file: StoredFile };

/** What a render stored beside its file. */
export type StoredCompanions = { pages?: StoredImage[]; preview?: StoredImage };

/** An image to store beside a file (a RenderResult's companion). */
type ImageToStore = { page: number; width: number; height: number; body: Uint8Array; contentType: string };

/** One page's image in an answer: `fileUrls`' entry, in page order. */
export type PageFileUrl = { page: number; width: number; height: number; contentType: string; fileSize: number; fileUrl: string | null };

/** Stores the images made beside a file, each as a temporary file of `accountId`'s. */
export async function storeCompanions(
  files: Pick<FileStore, 'put'>,
  accountId: string,
  companions: { pages?: ImageToStore[]; preview?: ImageToStore } | undefined,
): Promise<StoredCompanions> {
  const store = async ({ page, width, height, body, contentType }: ImageToStore): Promise<StoredImage> => ({
    page,
    width,
    height,
    file: await files.put(accountId, Buffer.from(body.buffer, body.byteOffset, body.byteLength), contentType),
  });
  const [pages, preview] = await Promise.all([
    companions?.pages ? Promise.all(companions.pages.map(store)) : undefined,
    companions?.preview ? store(companions.preview) : undefined,
  ]);
  return { ...(pages ? { pages } : {}), ...(preview ? { preview } : {}) };
}

/**
 * The answer's fields for what was stored beside a file: `fileUrls` (several
 * page images) and `previewUrl`, each URL valid for the rest of its file's
 * lifetime (null once it has expired); neither field when nothing was stored.
 */
export async function companionUrls(
  files: Pick<FileStore, 'downloadUrl'>,
  stored: StoredCompanions,
  lifetimeSeconds: number,
  now = Date.now(),
): Promise<{ fileUrls?: PageFileUrl[]; previewUrl?: string | null }> {
  const url = async (file: StoredFile) => (await temporaryFileUrl(files, file, lifetimeSeconds, now)) ?? null;
  const fileUrls = stored.pages
    ? await Promise.all(
        stored.pages.map(async ({ page, width, height, file }) => ({ page, width, height, contentType: file.contentType, fileSize: file.size, fileUrl: await url(file) })),
      )
    : undefined;
  const previewUrl = stored.preview ? await url(stored.preview.file) : undefined;
  return { ...(fileUrls ? { fileUrls } : {}), ...(previewUrl !== undefined ? { previewUrl } : {}) };
}
