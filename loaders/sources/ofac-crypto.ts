import { readFile } from 'node:fs/promises';
import type { EntityRecord, Metadata } from '../../engine/model.js';
import { normalizeCrypto } from '../../engine/normalize/index.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { networkOf } from './crypto-assets.js';
import { Progress, requireFile, sourceError } from './io.js';
import { lineValues } from './text-lists.js';
import { ofacDetailsUrl } from './ofac-features.js';
import { PartyBuilder } from './party.js';

/**
 * OFAC's digital currency addresses from two sources:
 * - the per-asset files (0xB10C's `sanctioned_addresses_<ASSET>.txt`, one address per line, case
 *   as published): required, one per asset (a missing one is a failed download);
 * - optionally the extract of SDN.XML that names each address's listed party
 *   (`crypto/ofac-sanctioned-addresses-*.json`: `addresses` → `{type, entries: [{entity, uid,
 *   program, akas}]}`), newer than the per-asset files. Its extractor lower-cased the addresses,
 *   which breaks base58 (case-sensitive): an address's case is taken from the per-asset files;
 *   a base58 address they do not hold keeps the lower case and says so (`address_case:
 *   "unknown"`), and crypto screening also probes the lower case of a base58 address (see
 *   engine/probes.ts), so it still matches.
 * With the extract, each address record carries its party (`party_id` = OFAC uid, SPEC's `name`,
 * `sdn_name`, `programs`), and each party is published as a `party` record after the addresses.
 * Addresses only in the per-asset files are kept as they are.
 */

interface ExtractEntry {
  entity: string;
  uid: string;
  program?: string;
  akas?: string[];
}

interface Extract {
  addresses: Record<string, { type?: string; entries?: ExtractEntry[] }>;
}

const SYMBOL = /^Digital Currency Address - ([A-Za-z0-9]+)$/;
/**
 * Whether a lower-cased address is valid as it stands: hex, bech32 and cashaddr are
 * case-insensitive (their checksums pass in lower case); a base58 address's checksum does not,
 * and a Solana address (base58 without a checksum) cannot vouch for its case.
 */
function validLowerCase(address: string): boolean {
  const chain = normalizeCrypto(address).chain;
  return chain !== null && chain !== 'solana';
}

function readExtract(path: string, text: string): Extract {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw sourceError(path, null, `not JSON: ${(e as Error).message}`);
  }
  const addresses = (data as Partial<Extract> | null)?.addresses;
  if (typeof addresses !== 'object' || addresses === null)
    throw sourceError(path, null, 'no "addresses" object (not an OFAC address extract)');
  for (const [address, item] of Object.entries(addresses)) {
    const entries = item?.entries;
    if (!Array.isArray(entries) || entries.some((e) => typeof e?.uid !== 'string' || typeof e?.entity !== 'string')) {
      throw sourceError(path, null, `address ${address}: entries without uid or entity (malformed file)`);
    }
  }
  return data as Extract;
}

function programs(program: string | undefined): string[] {
  return (program ?? '')
    .split(/,\s*/)
    .map((p) => p.trim())
    .filter(Boolean);
}

export function ofacCryptoParser(
  list: string,
  assets: readonly string[],
  urlOf: (asset: string) => string,
  extractKey: string,
) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const paths = assets.map((a) => requireFile(files, a, list));
    const extractPath = files[extractKey];
    const progress = new Progress(ctx, extractPath ? [...paths, extractPath] : paths);
    // Every published address by asset, in file order, and its case by lower-cased form.
    const byAsset: { asset: string; value: string }[] = [];
    const cased = new Map<string, string>();
    for (const [i, asset] of assets.entries()) {
      for await (const { value } of lineValues(paths[i], progress)) {
        byAsset.push({ asset, value });
        cased.set(value.toLowerCase(), value);
      }
    }
    const parties = new Map<string, { builder: PartyBuilder; programs: string[] }>();
    /** The extract's entries by address (with the per-asset files' case) and the extract's own addresses. */
    const entriesOf = new Map<string, ExtractEntry[]>();
    const extractOnly: { symbol: string | null; value: string; caseUnknown: boolean }[] = [];
    if (extractPath) {
      const text = await readFile(extractPath, 'utf8');
      progress.add(Buffer.byteLength(text));
      for (const [key, item] of Object.entries(readExtract(extractPath, text).addresses)) {
        const known = cased.get(key.toLowerCase());
        const value = known ?? key;
        entriesOf.set(value, item.entries!);
        if (known === undefined)
          extractOnly.push({
            symbol: SYMBOL.exec(item.type ?? '')?.[1]?.toUpperCase() ?? null,
            value,
            caseUnknown: !validLowerCase(key),
          });
        for (const e of item.entries!) {
          let party = parties.get(e.uid);
          if (!party)
            parties.set(
              e.uid,
              (party = { builder: new PartyBuilder(e.uid, e.entity, null), programs: programs(e.program) }),
            );
          for (const aka of e.akas ?? []) party.builder.alias(aka, 'a.k.a.', false);
        }
      }
    }
    /** One record per party naming the address (one without a party when none does). */
    const records = function* (
      symbol: string | null,
      value: string,
      sourceUrl: string,
      extra: Metadata,
    ): Generator<EntityRecord> {
      const base = { list, entity_type: 'crypto_address' as const, value, listed_at: null, removed_at: null };
      const plain: Metadata = { symbol, network: symbol ? networkOf(symbol, value) : null, ...extra };
      const entries = entriesOf.get(value);
      if (!entries) {
        yield { ...base, metadata: plain, source_url: sourceUrl };
        return;
      }
      for (const e of entries) {
        const metadata: Metadata = {
          ...plain,
          name: e.entity,
          sdn_name: e.entity,
          programs: parties.get(e.uid)!.programs,
          ent_num: e.uid,
          party_id: e.uid,
        };
        yield { ...base, metadata, source_url: ofacDetailsUrl(e.uid) };
      }
    };
    for (const { asset, value } of byAsset) yield* records(asset, value, urlOf(asset), {});
    for (const { symbol, value, caseUnknown } of extractOnly)
      yield* records(
        symbol,
        value,
        ofacDetailsUrl(entriesOf.get(value)![0].uid),
        caseUnknown ? { address_case: 'unknown' } : {},
      );
    for (const [uid, { builder, programs: p }] of parties)
      yield builder.record(list, ofacDetailsUrl(uid), p, { sdn_name: builder.name, ent_num: uid });
  };
}
