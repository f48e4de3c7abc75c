/**
 * `compare`: the name score of two names, or of each `name1,name2` row of a CSV file, as the
 * project's name matcher (`engine/names`) scores it.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { NAME_THRESHOLD, nameScore, prepareName, type PartyType } from '../../engine/names/index.js';
import { FUZZY_ID_THRESHOLD, idSimilarity } from '../../engine/similarity.js';

export const summary = 'score the similarity (0..1) of two names, or of each row of a name1,name2 CSV file';

const TYPES: readonly PartyType[] = ['person', 'organization', 'vessel', 'aircraft'];

const USAGE = `usage: cli compare "name one" "name two" [--type T] [--id] [--json]
       cli compare --pairs FILE.csv [--type T] [--id] [--json]

Prints the name score (0..1, 4 decimals) of the screening's name matcher (a match needs
${NAME_THRESHOLD}). With --pairs, FILE.csv has a header row with columns name1 and name2 (other
columns are ignored, quoted fields are allowed); one score is printed per data row, in order.
  --type T compare both as names of a ${TYPES.join(', ')} (default: told by the names)
  --id     compare government IDs instead of names (a fuzzy ID match needs ${FUZZY_ID_THRESHOLD})
  --json   print JSON instead ({"score": n}, or an array of {name1, name2, score})`;

function format(score: number): string {
  return score.toFixed(4);
}

async function pairsFromCsv(file: string): Promise<[string, string][]> {
  const text = await readFile(file, 'utf8');
  const rows = parse(text, {
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    columns: (header: string[]) => {
      const names = header.map((h) => h.trim());
      if (!names.includes('name1') || !names.includes('name2')) {
        throw new Error(`${file}: the header must name columns name1 and name2`);
      }
      return names;
    },
  }) as Record<string, string | undefined>[];
  return rows.map((r) => [r.name1 ?? '', r.name2 ?? '']);
}

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const json = args.includes('--json');
  let rest = args.filter((a) => a !== '--json' && a !== '--id');
  let type: PartyType | null = null;
  const typeAt = rest.indexOf('--type');
  if (typeAt >= 0) {
    const value = rest[typeAt + 1] as PartyType;
    if (!TYPES.includes(value)) {
      console.error(USAGE);
      return 2;
    }
    type = value;
    rest = rest.filter((_, i) => i !== typeAt && i !== typeAt + 1);
  }
  const similarity = args.includes('--id')
    ? idSimilarity
    : (a: string, b: string) => nameScore(prepareName(a, { type }), prepareName(b, { type }));
  const pairsAt = rest.indexOf('--pairs');
  if (pairsAt >= 0) {
    const file = rest[pairsAt + 1];
    if (!file || rest.length !== 2) {
      console.error(USAGE);
      return 2;
    }
    let pairs: [string, string][];
    try {
      pairs = await pairsFromCsv(file);
    } catch (err) {
      console.error(err instanceof Error ? err.message : String(err));
      return 1;
    }
    const scored = pairs.map(([name1, name2]) => ({ name1, name2, score: similarity(name1, name2) }));
    if (json) console.log(JSON.stringify(scored.map((s) => ({ ...s, score: Number(format(s.score)) }))));
    else process.stdout.write(scored.map((s) => `${format(s.score)}\n`).join(''));
    return 0;
  }
  if (rest.length !== 2 || rest.some((a) => a.startsWith('--'))) {
    console.error(USAGE);
    return 2;
  }
  const score = similarity(rest[0], rest[1]);
  console.log(json ? JSON.stringify({ score: Number(format(score)) }) : format(score));
  return 0;
}
