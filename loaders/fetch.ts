import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FetchedFiles, LoaderSettings, SourceFile } from './types.js';

/**
 * Downloads one source file into `DATA_DIR/sources/<slug>/`, or reads it from `SOURCE_DIR`.
 * A `<key>.meta.json` beside each cached file keeps its ETag, Last-Modified and sha256, so the next
 * check is a conditional GET and an unchanged file (304, or same checksum) is reported as such.
 * The cached file is only replaced by a complete, verified download (temporary name, then rename).
 */

export interface FetchOptions {
  /** `DATA_DIR`: cached files live in `<dataDir>/sources/<slug>/`. */
  dataDir: string;
  /** Read every file from this directory (laid out like ../shared/data) instead of the network. */
  sourceDir?: string;
  /** "slug.key" → URL, replacing the official URL. */
  urlOverrides: Record<string, string>;
  /** Aborts an attempt when no byte arrives for this long (headers or body). */
  timeoutMs: number;
  retries: number;
  maxBytes: number;
  /** First backoff delay; doubled after each failed attempt. */
  backoffMs?: number;
  /** Bytes read so far of the file `key`, and its size when known. */
  progress?: (done: number, total: number | undefined, key: string) => void;
}

export interface FetchResult {
  key: string;
  /** Local path of the file (cache file, or the file in SOURCE_DIR). */
  path: string;
  url: string;
  /** False when the server said 304 or the content's checksum equals the previous one. */
  changed: boolean;
  sha256: string;
  bytes: number;
}

interface CacheMeta {
  url: string;
  etag: string | null;
  last_modified: string | null;
  sha256: string;
  bytes: number;
  fetched_at: string;
}

export class FetchError extends Error {
  constructor(
    message: string,
    /** False for failures a retry cannot fix (4xx, too large). */
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

export function fetchOptionsFromConfig(
  config: Pick<
    LoaderSettings,
    'DATA_DIR' | 'SOURCE_DIR' | 'SOURCE_URLS' | 'SOURCE_FETCH_TIMEOUT_MS' | 'SOURCE_FETCH_RETRIES' | 'SOURCE_MAX_BYTES'
  >,
): FetchOptions {
  return {
    dataDir: config.DATA_DIR,
    sourceDir: config.SOURCE_DIR,
    urlOverrides: config.SOURCE_URLS,
    timeoutMs: config.SOURCE_FETCH_TIMEOUT_MS,
    retries: config.SOURCE_FETCH_RETRIES,
    maxBytes: config.SOURCE_MAX_BYTES,
  };
}

function sourceUrl(slug: string, file: SourceFile, opts: Pick<FetchOptions, 'urlOverrides'>): string {
  return opts.urlOverrides[`${slug}.${file.key}`] ?? file.url;
}

function cachePaths(dataDir: string, slug: string, file: SourceFile): { file: string; meta: string } {
  const dir = join(dataDir, 'sources', slug);
  return { file: join(dir, `${file.key}${extname(file.sourceDirPath)}`), meta: join(dir, `${file.key}.meta.json`) };
}

/** Fetches one file; null when an optional file does not exist at its source. */
export async function fetchSourceFile(slug: string, file: SourceFile, opts: FetchOptions): Promise<FetchResult | null> {
  const paths = cachePaths(opts.dataDir, slug, file);
  const previous = await readMeta(paths.meta);
  if (opts.sourceDir) return readFromSourceDir(file, opts, paths.meta, previous);

  const url = sourceUrl(slug, file, opts);
  // An optional file without a public download is read only from a configured URL.
  if (!url && file.optional) return null;
  const cached = previous && previous.url === url && (await exists(paths.file)) ? previous : null;
  const backoff = opts.backoffMs ?? 500;
  for (let attempt = 0; ; attempt++) {
    try {
      return await download(file, url, opts, paths, cached);
    } catch (err) {
      const fe = err instanceof FetchError ? err : new FetchError(`${url}: ${(err as Error).message}`, true);
      if (fe.status === 404 && file.optional) return null;
      if (!fe.retryable || attempt >= opts.retries) throw fe;
      await new Promise((r) => setTimeout(r, backoff * 2 ** attempt));
    }
  }
}

/**
 * Fetches every file of a source. `changed` is false only when no file changed; `digest` is a
 * checksum over all files (what a parse would read), so a list can skip re-parsing identical input.
 */
export async function fetchSourceFiles(
  slug: string,
  files: SourceFile[],
  opts: FetchOptions,
): Promise<{ files: FetchedFiles; results: FetchResult[]; changed: boolean; digest: string }> {
  const out: FetchedFiles = {};
  const results: FetchResult[] = [];
  for (const f of files) {
    const r = await fetchSourceFile(slug, f, opts);
    if (!r) continue;
    out[f.key] = r.path;
    results.push(r);
  }
  const digest = createHash('sha256');
  for (const r of [...results].sort((a, b) => a.key.localeCompare(b.key))) digest.update(`${r.key}:${r.sha256}\n`);
  return { files: out, results, changed: results.some((r) => r.changed), digest: digest.digest('hex') };
}

async function download(
  file: SourceFile,
  url: string,
  opts: FetchOptions,
  paths: { file: string; meta: string },
  cached: CacheMeta | null,
): Promise<FetchResult> {
  const ac = new AbortController();
  let timer = setTimeout(() => ac.abort(), opts.timeoutMs);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ac.abort(), opts.timeoutMs);
  };
  const headers: Record<string, string> = { 'user-agent': 'screening-service-loader/1.0' };
  if (cached?.etag) headers['if-none-match'] = cached.etag;
  if (cached?.last_modified) headers['if-modified-since'] = cached.last_modified;
  const tmp = `${paths.file}.part-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: ac.signal, redirect: 'follow' });
    } catch (err) {
      throw new FetchError(
        `${url}: ${ac.signal.aborted ? `timed out after ${opts.timeoutMs} ms` : describe(err)}`,
        true,
      );
    }
    if (res.status === 304 && cached) {
      await res.body?.cancel();
      return { key: file.key, path: paths.file, url, changed: false, sha256: cached.sha256, bytes: cached.bytes };
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new FetchError(
        `${url}: HTTP ${res.status}`,
        res.status >= 500 || res.status === 429 || res.status === 408,
        res.status,
      );
    }
    const lengthHeader = res.headers.get('content-length');
    const expected = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
    if (expected !== undefined && expected > opts.maxBytes) {
      await res.body.cancel();
      throw new FetchError(`${url}: ${expected} bytes exceeds the limit of ${opts.maxBytes}`, false);
    }

    await mkdir(join(paths.file, '..'), { recursive: true });
    const hash = createHash('sha256');
    let bytes = 0;
    // Each chunk is written and awaited before the next is read, into a file handle this attempt
    // alone owns and closes before the file is removed: a write stream buffered writes and opened
    // its file in the background, so an interrupted body could leave a write or an open in flight
    // while the attempt failed, the file was removed and the retry reused its name.
    const out = await open(tmp, 'w');
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        touch();
        bytes += chunk.byteLength;
        if (bytes > opts.maxBytes) {
          ac.abort();
          throw new FetchError(`${url}: body exceeds the limit of ${opts.maxBytes} bytes`, false);
        }
        hash.update(chunk);
        await out.write(chunk);
        opts.progress?.(bytes, expected, file.key);
      }
    } catch (err) {
      if (err instanceof FetchError) throw err;
      const why = ac.signal.aborted ? `timed out after ${opts.timeoutMs} ms` : describe(err);
      throw new FetchError(`${url}: body interrupted after ${bytes} bytes (${why})`, true);
    } finally {
      await out.close();
    }
    // fetch decodes gzip/br bodies, and Content-Length then counts the encoded bytes.
    const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
    if (expected !== undefined && !encoded && bytes !== expected) {
      throw new FetchError(`${url}: truncated body (${bytes} of ${expected} bytes)`, true);
    }
    const sha256 = hash.digest('hex');
    await rename(tmp, paths.file);
    const meta: CacheMeta = {
      url,
      etag: res.headers.get('etag'),
      last_modified: res.headers.get('last-modified'),
      sha256,
      bytes,
      fetched_at: new Date().toISOString(),
    };
    await writeJson(paths.meta, meta);
    return { key: file.key, path: paths.file, url, changed: cached?.sha256 !== sha256, sha256, bytes };
  } finally {
    clearTimeout(timer);
    await rm(tmp, { force: true });
  }
}

async function readFromSourceDir(
  file: SourceFile,
  opts: FetchOptions,
  metaPath: string,
  previous: CacheMeta | null,
): Promise<FetchResult | null> {
  const path = join(opts.sourceDir!, file.sourceDirPath);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    if (file.optional) return null;
    throw new FetchError(`${path}: not found in SOURCE_DIR`, false);
  }
  if (size > opts.maxBytes) throw new FetchError(`${path}: ${size} bytes exceeds the limit of ${opts.maxBytes}`, false);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).byteLength;
    opts.progress?.(bytes, size, file.key);
  }
  const sha256 = hash.digest('hex');
  const url = `file://${path}`;
  await writeJson(metaPath, {
    url,
    etag: null,
    last_modified: null,
    sha256,
    bytes,
    fetched_at: new Date().toISOString(),
  } satisfies CacheMeta);
  return { key: file.key, path, url, changed: previous?.sha256 !== sha256, sha256, bytes };
}

async function readMeta(path: string): Promise<CacheMeta | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as CacheMeta;
  } catch {
    return null;
  }
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function describe(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string } };
  return e.cause ? `${e.message}: ${e.cause.code ?? e.cause.message}` : e.message;
}
