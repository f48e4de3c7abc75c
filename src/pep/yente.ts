import type { Logger } from 'pino';
import { z } from 'zod';
import { normalizeCountry } from '../../engine/normalize/index.js';
import type { PepScreenResponseT } from './schema.js';
import { badGateway, serviceUnavailable } from '../core/errors.js';
import { PEP_THRESHOLD, entityUrl, type PepProvider, type PepQuery } from './types.js';

/**
 * A live proxy to an OpenSanctions-compatible match API (yente):
 * `POST {url}/match/{dataset}?threshold=0.7&limit=N` with one Person query. `match` and `score`
 * are yente's own. Failures become 503 (unreachable, timed out, 5xx, rate-limited) or 502 (the
 * upstream refused the request or answered something unreadable); the pipeline does not charge
 * a request whose handler throws.
 */

export interface YenteOptions {
  url: string;
  dataset: string;
  apiKey?: string;
  /** Budget of the whole call, retries included. */
  timeoutMs: number;
  log: Logger;
  /** Attempts on network errors and retryable statuses (default 3). */
  attempts?: number;
  backoffMs?: number;
}

const strs = z.array(z.string()).optional();

const YenteResult = z.looseObject({
  id: z.string(),
  caption: z.string(),
  score: z.number(),
  match: z.boolean(),
  datasets: strs,
  properties: z.looseObject({ topics: strs, country: strs, birthDate: strs, position: strs }).optional(),
});

const YenteMatchResponse = z.looseObject({
  responses: z.record(z.string(), z.looseObject({ status: z.number().optional(), results: z.array(YenteResult) })),
});

class Retryable extends Error {}

export function yentePepProvider(opts: YenteOptions): PepProvider {
  const base = opts.url.replace(/\/+$/, '');
  const attempts = opts.attempts ?? 3;
  const backoffMs = opts.backoffMs ?? 100;

  async function post(body: string, limit: number, deadline: number): Promise<unknown> {
    const url = `${base}/match/${encodeURIComponent(opts.dataset)}?threshold=${PEP_THRESHOLD}&limit=${limit}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (opts.apiKey) headers.authorization = `ApiKey ${opts.apiKey}`;
    const left = deadline - Date.now();
    if (left <= 0) throw new Retryable('timed out');
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(left) });
    } catch (err) {
      const e = err as Error;
      throw new Retryable(
        e.name === 'TimeoutError'
          ? 'timed out'
          : `unreachable (${(e.cause as Error | undefined)?.message ?? e.message})`,
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new Retryable(`response interrupted (${(err as Error).message})`);
    }
    if (res.status >= 500 || res.status === 429 || res.status === 408) throw new Retryable(`HTTP ${res.status}`);
    if (!res.ok) throw badGateway(`PEP provider rejected the request (HTTP ${res.status})`);
    try {
      return JSON.parse(text);
    } catch {
      throw badGateway('PEP provider returned an invalid response');
    }
  }

  return {
    kind: 'yente',
    async screen(q: PepQuery): Promise<PepScreenResponseT> {
      const properties: Record<string, string[]> = { name: [q.name] };
      if (q.birth_date) properties.birthDate = [q.birth_date];
      const ref = q.country ? normalizeCountry(q.country) : null;
      if (ref) properties.country = [(ref.kind === 'region' && ref.parent ? ref.parent : ref.code).toLowerCase()];
      const body = JSON.stringify({ queries: { q: { schema: 'Person', properties } } });
      const deadline = Date.now() + opts.timeoutMs;

      let raw: unknown;
      for (let attempt = 1; ; attempt++) {
        try {
          raw = await post(body, q.limit, deadline);
          break;
        } catch (err) {
          if (!(err instanceof Retryable)) throw err;
          const wait = backoffMs * 2 ** (attempt - 1);
          if (attempt >= attempts || Date.now() + wait >= deadline) {
            opts.log.warn({ provider: 'yente', attempts: attempt, reason: err.message }, 'PEP provider unavailable');
            throw serviceUnavailable(`PEP provider unavailable: ${err.message}`);
          }
          await new Promise((r) => setTimeout(r, wait));
        }
      }

      const parsed = YenteMatchResponse.safeParse(raw);
      const response = parsed.success ? parsed.data.responses.q : undefined;
      if (!response || (response.status !== undefined && response.status !== 200)) {
        throw badGateway('PEP provider returned an invalid response');
      }
      const matches = response.results.slice(0, q.limit).map((r) => ({
        id: r.id,
        caption: r.caption,
        score: r.score,
        match: r.match,
        topics: r.properties?.topics ?? [],
        countries: r.properties?.country ?? [],
        birth_dates: r.properties?.birthDate ?? [],
        positions: r.properties?.position ?? [],
        datasets: r.datasets ?? [],
        source_url: entityUrl(r.id),
      }));
      return { value: q.name, pep: matches.some((m) => m.match), dataset: opts.dataset, matches };
    },
  };
}
