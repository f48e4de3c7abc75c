/**
 * The name matcher's quality targets and speed (issue #21), beside the scorer of a baseline
 * commit (default: the one before the matcher, `a670364`) measured on the same data:
 * - F1 (precision, recall) at the threshold on name-bench-dev.csv, tuning part, held-out part
 *   and whole (harness/name-quality.ts splits it);
 * - cross-script pairs at or above their minimum score, with the transliteration of each failure;
 * - UN names with seeded typos against the UN list: listed party top-1 and top-10;
 * - people on no list, by name only, against OFAC SDN, OFAC consolidated and UN: share matching;
 * - ns per pair of `nameScore` (benchmark.js) on pairs of unrelated names and on near pairs.
 *   node dist/bench/names-quality.js [--baseline <commit>] [--errors]
 * `--errors` also lists what engine/names gets wrong (misclassified pairs, cross-script failures,
 * typos not ranked first, people on no list who match); `make bench` leaves them out of RESULTS.md.
 * The baseline's engine/ is taken from git into .tmp/ and loaded through tsx. Screening scores
 * every party (no candidate index, unlike the test): the baseline's tokens would not find its
 * own fuzzy matches in an index, and it checks that the test's index misses nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Benchmark from 'benchmark';
import { parse } from 'csv-parse/sync';
import { NAME_THRESHOLD, nameScore, prepareName, type PreparedName } from '../engine/names/index.js';
import { loadKanjiReader } from '../engine/names/kanji.js';
import {
  crossScriptQuality,
  devQuality,
  listedParties,
  NAME_LISTS,
  negativeQuality,
  projectMatcher,
  TARGETS,
  typoVariant,
  TYPO_SEED,
  unTypoQuality,
  type Confusion,
  type MatcherUnderTest,
  type RankedParty,
} from '../harness/name-quality.js';
import { xorshift32 } from '../harness/random.js';
import { REPO_ROOT, sharedData } from '../harness/paths.js';

const argValue = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const baselineCommit = argValue('baseline') ?? 'a670364';

interface OldScorer {
  prepareName(value: string): { tokens: string[] };
  preparedSimilarity(a: unknown, b: unknown): number;
}

/** The baseline's name similarity, from git through tsx; null when git or the commit is missing. */
async function loadBaseline(commit: string): Promise<OldScorer | null> {
  try {
    const dir = join(REPO_ROOT, '.tmp', `baseline-${commit}`);
    mkdirSync(dir, { recursive: true });
    const tar = execFileSync('git', ['archive', commit, 'engine'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    const tsx = (await import('tsx/esm/api')) as { register: () => unknown };
    tsx.register();
    return (await import(pathToFileURL(join(dir, 'engine', 'similarity.ts')).href)) as OldScorer;
  } catch (err) {
    process.stderr.write(`names-quality: no baseline ${commit}: ${err instanceof Error ? err.message : String(err)}\n`);
    return null;
  }
}

/** The baseline as the measurements see it: best name of a party, no party rules. */
function baselineMatcher(old: OldScorer): MatcherUnderTest {
  return {
    pair: (a, b) => old.preparedSimilarity(old.prepareName(a), old.prepareName(b)),
    screener(parties) {
      const prepared = parties.map((p) => p.names.map((n) => old.prepareName(n.value)));
      return (name, limit) => {
        const q = old.prepareName(name);
        const out: RankedParty[] = [];
        for (let i = 0; i < prepared.length; i++) {
          let best = 0;
          for (const n of prepared[i]) best = Math.max(best, old.preparedSimilarity(q, n));
          if (best > 0) out.push({ id: parties[i].id, score: best });
        }
        out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        return out.slice(0, limit);
      };
    },
  };
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
const f3 = (x: number) => x.toFixed(3);
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

function confusionRow(part: string, scorer: string, c: Confusion): string {
  return row([part, scorer, c.pairs, f3(c.precision), f3(c.recall), `**${f3(c.f1)}**`, c.fp, c.fn]);
}

// Names in kanji are read in Japanese as the shards read them once a name in kanji arrives.
await loadKanjiReader();
const old = await loadBaseline(baselineCommit);
const matchers: [string, MatcherUnderTest][] = [['engine/names', projectMatcher(true)]];
if (old) matchers.push([`baseline ${baselineCommit}`, baselineMatcher(old)]);
const unParties = await listedParties(['un_sc']);
const allParties = await listedParties(NAME_LISTS);
const out: string[] = [];
const showErrors = process.argv.includes('--errors');
/** Lines that list engine/names' errors one by one, written only with --errors. */
const errorLines = (...lines: string[]) => {
  if (showErrors) out.push(...lines);
};

out.push(
  `Threshold ${NAME_THRESHOLD}. Targets: F1 ≥ ${TARGETS.f1} on the held-out part and the whole; cross-script ≥ ${pct(TARGETS.crossScript)}; ` +
    `UN typos top-1 ≥ ${pct(TARGETS.top1)}, top-10 ≥ ${pct(TARGETS.top10)}; negatives ≤ ${pct(TARGETS.negatives)} by name, ≤ ${pct(TARGETS.negativesWithBirthDate)} with birth date. ` +
    `The baseline is the scorer of commit ${baselineCommit} on the same data (best name of a party; it has no party rules).\n`,
);

out.push('### Labelled pairs (name-bench-dev.csv; a third held out from tuning by a hash of case group and row)\n');
out.push(
  '| part | scorer | pairs | precision | recall | F1 | false pos. | false neg. |\n|---|---|---|---|---|---|---|---|',
);
const devErrors: string[] = [];
for (const [name, m] of matchers) {
  const dev = devQuality(m, NAME_THRESHOLD);
  out.push(
    confusionRow('tuning', name, dev.tuning),
    confusionRow('held out', name, dev.heldOut),
    confusionRow('whole', name, dev.whole),
  );
  if (m === matchers[0][1]) {
    for (const e of dev.errors)
      devErrors.push(
        row([
          e.heldOut ? 'held out' : 'tuning',
          e.match ? 'missed' : 'false match',
          f3(e.score),
          e.schema,
          e.name1,
          e.name2,
          e.notes || e.category,
        ]),
      );
  }
}
errorLines(
  `\n<details><summary>engine/names: the ${devErrors.length} misclassified pairs</summary>\n`,
  '| part | error | score | schema | name 1 | name 2 | note |\n|---|---|---|---|---|---|---|',
  ...devErrors,
  '\n</details>\n',
);
out.push('');

out.push('### Cross-script pairs (at or above their minimum score)\n');
out.push('| scorer | passed |\n|---|---|');
let crossFailures: string[] = [];
for (const [name, m] of matchers) {
  const cs = crossScriptQuality(m);
  out.push(row([name, `${cs.passed} of ${cs.pairs.length} (${pct(cs.passed / cs.pairs.length)})`]));
  if (m === matchers[0][1]) {
    crossFailures = cs.pairs
      .filter((p) => p.score < p.min)
      .map((p) => row([p.query, p.expected, p.min, f3(p.score), prepareName(p.query).latin.tokens.join(' ')]));
  }
}
errorLines(
  '\nengine/names failures, with the transliteration (any-ascii) they were compared in:\n',
  '| query | expected | minimum | score | transliterated |\n|---|---|---|---|---|',
  ...crossFailures,
);
out.push('');

out.push('### UN names with seeded typos (one edit per 8 letters, half also reordered) against the UN list\n');
out.push('| scorer | screened | top 1 | top 10 |\n|---|---|---|---|');
let typoMisses: string[] = [];
for (const [name, m] of matchers) {
  const t = unTypoQuality(m, unParties);
  out.push(
    row([name, t.screened, `${t.top1} (${pct(t.top1 / t.screened)})`, `${t.top10} (${pct(t.top10 / t.screened)})`]),
  );
  if (m === matchers[0][1])
    typoMisses = t.misses.map((x) =>
      row([x.name, x.typo, x.rank ?? '> 10', x.top[0] ? `${x.top[0].id} ${f3(x.top[0].score)}` : '']),
    );
}
errorLines(
  `\n<details><summary>engine/names: the ${typoMisses.length} names not first</summary>\n`,
  '| listed name | typo | rank | first |\n|---|---|---|---|',
  ...typoMisses,
  '\n</details>\n',
);
out.push('');

out.push('### People on no list (negatives-us-small.csv) against OFAC SDN, OFAC consolidated and UN\n');
out.push(
  'By name only, and with their birth date (the baseline has no birth-date rule: name only).\n',
  '| scorer | people | name only: any party ≥ threshold | with birth date |\n|---|---|---|---|',
);
let negatives: string[] = [];
for (const [name, m] of matchers) {
  const n = negativeQuality(m, allParties, NAME_THRESHOLD);
  const dated = m === matchers[0][1] ? negativeQuality(m, allParties, NAME_THRESHOLD, true) : null;
  const share = (r: { flagged: unknown[]; people: number }) =>
    `${r.flagged.length} (${pct(r.flagged.length / r.people)})`;
  out.push(row([name, n.people, share(n), dated ? share(dated) : '']));
  if (dated)
    negatives = [...n.flagged, ...dated.flagged].map((f) =>
      row([f.name, f.birthDate ?? 'name only', f.party.id, f3(f.party.score)]),
    );
}
errorLines('\nengine/names matches:\n', '| person | birth date | party | score |\n|---|---|---|---|', ...negatives);
out.push('');
if (!showErrors) out.push('What engine/names gets wrong, case by case: `node dist/bench/names-quality.js --errors`.\n');

// Speed: unrelated pairs (people on no list × UN names) and near pairs (UN names × their typos).
const people = (
  parse(readFileSync(sharedData('names', 'negatives-us-small.csv'), 'utf8'), { columns: true }) as {
    full_name: string;
  }[]
).map((r) => r.full_name);
const unNames = unParties.flatMap((p) => p.names.map((n) => n.value));
const next = xorshift32(TYPO_SEED + 1);
const unrelated: [string, string][] = [];
const near: [string, string][] = [];
for (let i = 0; i < 2000; i++) {
  unrelated.push([people[i % people.length], unNames[(i * 7919) % unNames.length]]);
  const n = unNames[(i * 104729) % unNames.length];
  near.push([typoVariant(n, next), n]);
}
const prepared = (pairs: [string, string][], prep: (s: string) => unknown) =>
  pairs.map(([a, b]) => [prep(a), prep(b)] as const);
const speedRows: string[] = [];
const suite = new Benchmark.Suite();
let sink = 0;
const addPairs = (
  label: string,
  pairs: readonly (readonly [unknown, unknown])[],
  score: (a: unknown, b: unknown) => number,
) => {
  let i = 0;
  suite.add(label, () => {
    const [a, b] = pairs[i++ % pairs.length];
    sink += score(a, b);
  });
};
const score = (a: unknown, b: unknown) => nameScore(a as PreparedName, b as PreparedName);
addPairs(
  'engine/names nameScore, unrelated names',
  prepared(unrelated, (s) => prepareName(s)),
  score,
);
addPairs(
  'engine/names nameScore, near names (typos)',
  prepared(near, (s) => prepareName(s)),
  score,
);
if (old) {
  addPairs(
    `baseline ${baselineCommit}, unrelated names`,
    prepared(unrelated, (s) => old.prepareName(s)),
    (a, b) => old.preparedSimilarity(a, b),
  );
  addPairs(
    `baseline ${baselineCommit}, near names (typos)`,
    prepared(near, (s) => old.prepareName(s)),
    (a, b) => old.preparedSimilarity(a, b),
  );
}
let p = 0;
suite.add('engine/names prepareName (UN names)', () => {
  sink += prepareName(unNames[p++ % unNames.length]).latin.tokens.length;
});
await new Promise<void>((done) => {
  suite
    .on('cycle', (e: Benchmark.Event) => {
      const b = e.target;
      speedRows.push(
        row([
          b.name!,
          Math.round(b.hz!).toLocaleString('en-US'),
          `±${b.stats!.rme.toFixed(1)}%`,
          Math.round(1e9 / b.hz!),
        ]),
      );
    })
    .on('complete', () => done())
    .run();
});
out.push('### Speed (benchmark.js, one pair per call, prepared names)\n');
out.push('| operation | ops/s | error | ns/op |\n|---|---|---|---|', ...speedRows);
if (sink < 0) out.push(String(sink));
console.log(out.join('\n'));
