import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { FUZZY_ID_THRESHOLD, idSimilarity, nameSimilarity, prepareName, preparedSimilarity } from '../../engine/similarity.js';
import { normalizeGovernmentId } from '../../engine/normalize/index.js';
import { FIXTURES, REPO_ROOT, sharedData } from '../../harness/paths.js';
import { rng } from '../../harness/random.js';

const run = promisify(execFile);

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

function names(file: string): string[] {
  return (parse(readFileSync(sharedData('names', file), 'utf8'), { columns: true }) as { full_name: string }[]).map(
    (r) => r.full_name,
  );
}

describe('nameSimilarity', () => {
  const atLeast = (a: string, b: string, min: number): void => {
    const s = nameSimilarity(a, b);
    assert.ok(s >= min, `${a} | ${b}: ${s}`);
    assert.equal(nameSimilarity(b, a), s, `symmetric: ${a} | ${b}`);
  };
  const below = (a: string, b: string, max: number): void => {
    const s = nameSimilarity(a, b);
    assert.ok(s < max, `${a} | ${b}: ${s}`);
  };

  test('identical and empty', () => {
    assert.equal(nameSimilarity('John Smith', 'JOHN  SMITH'), 1);
    assert.equal(nameSimilarity('', 'John'), 0);
    assert.equal(nameSimilarity('--', '--'), 0);
  });

  test('typos score at least 0.85', () => {
    atLeast('VLADIMIR PUTIN', 'VLADIMR PUTIN', 0.85);
    atLeast('Gazprom', 'Gazpron', 0.85);
    atLeast('Osama bin Laden', 'Usama bin Ladin', 0.85);
    atLeast('ACME TRADING LLC', 'ACNE TRADING LLC', 0.85);
    atLeast('Sergei Ivanov', 'Sergie Ivanov', 0.85);
    atLeast('Mohammed Al-Hashimi', 'Mohamed Al Hashimi', 0.85);
    assert.equal(round(nameSimilarity('VLADIMIR PUTIN', 'VLADIMR PUTIN')), 0.9625);
  });

  test('token order does not matter', () => {
    assert.equal(nameSimilarity('John Smith', 'Smith, John'), 1);
    assert.equal(nameSimilarity('KIM JONG UN', 'UN JONG KIM'), 1);
    atLeast('Bank Melli Iran', 'Iran Melli Bank', 0.85);
  });

  test('missing middle names and initials', () => {
    assert.equal(round(nameSimilarity('JOHN SMITH', 'JOHN PAUL SMITH')), 0.8889);
    atLeast('Ali Hassan', 'Ali Mohammed Hassan', 0.85);
    atLeast('J. Smith', 'John Smith', 0.85);
    atLeast('J R R Tolkien', 'John Ronald Reuel Tolkien', 0.85);
    atLeast('John F. Kennedy', 'John Fitzgerald Kennedy', 0.85);
  });

  test('transliterated pairs', () => {
    atLeast('Владимир Путин', 'Vladimir Putin', 0.85);
    atLeast('Александр Лукашенко', 'Alexander Lukashenko', 0.85);
    atLeast('Юрий Иванов', 'Iurii Ivanov', 0.85);
    atLeast('Yuriy Ivanov', 'Jurij Ivanov', 0.85);
    atLeast('Khodorkovsky', 'Hodorkovskiy', 0.85);
    atLeast('Κυριάκος Μητσοτάκης', 'Kyriakos Mitsotakis', 0.85);
    atLeast('محمد علي', 'Mohammed Ali', 0.85);
    atLeast('Muhammad Ali', 'Mohammed Ali', 0.85);
    atLeast('ABDUL RAHMAN', 'ABDULRAHMAN', 0.85);
  });

  test('generic tokens in common are not enough', () => {
    below('ACME TRADING LLC', 'GLOBAL TRADING LLC', 0.7);
    assert.equal(nameSimilarity('ACME TRADING LLC', 'GLOBAL TRADING LLC'), 0.5);
    below('Alpha International Group', 'Beta International Group', 0.7);
    below('Sunrise Trading Company Limited', 'Moonlight Trading Company Limited', 0.7);
    below('TRADING LLC', 'ACME TRADING LLC', 0.7);
    below('Bank Melli Iran', 'Bank Mellat', 0.7);
  });

  test('different people sharing one name part score low', () => {
    assert.equal(nameSimilarity('JOHN SMITH', 'JOHN BROWN'), 0.5);
    assert.equal(nameSimilarity('JOHN SMITH', 'JANE SMITH'), 0.5);
    below('Mahmoud Abbas', 'Mohammed Abbas', 0.7);
    below('Mohammed Ali', 'Mohammed Alawi', 0.7);
  });

  test('prepared names score as raw ones', () => {
    const a = prepareName('Smith, John Paul');
    const b = prepareName('John Smith');
    assert.equal(preparedSimilarity(a, b), nameSimilarity('Smith, John Paul', 'John Smith'));
  });

  test('UN list names against typo, reordered and uppercased copies of themselves', () => {
    const un = names('un-positives-untreated.csv');
    assert.equal(un.length, 683);
    for (const name of un) {
      const tokens = name.split(/\s+/).filter(Boolean);
      assert.equal(nameSimilarity(name, [...tokens].reverse().join(' ').toLowerCase()), 1, name);
      // Drop one inner letter of the longest token (a typo).
      const longest = tokens.reduce((x, y) => (y.length > x.length ? y : x));
      if (longest.length < 5) continue;
      const typo = name.replace(longest, longest.slice(0, 2) + longest.slice(3));
      assert.ok(nameSimilarity(name, typo) >= 0.85, `${name} | ${typo}: ${nameSimilarity(name, typo)}`);
    }
  });

  test('UN names against synthetic people on no list: almost never 0.85', () => {
    const un = names('un-positives-untreated.csv');
    const neg = names('negatives-us-small.csv');
    assert.equal(neg.length, 1000);
    let pairs = 0;
    const hits: string[] = [];
    for (let i = 0; i < un.length; i += 3) {
      for (let j = 0; j < neg.length; j += 2) {
        pairs++;
        if (nameSimilarity(un[i], neg[j]) >= 0.85) hits.push(`${un[i]} | ${neg[j]}`);
      }
    }
    assert.equal(pairs, 228 * 500);
    assert.deepEqual(hits, []);
  });
});

describe('idSimilarity', () => {
  test('formatting is ignored; one edit stays at or above the threshold', () => {
    assert.equal(FUZZY_ID_THRESHOLD, 0.9);
    assert.equal(idSimilarity('OB 0243318', 'ob0243318'), 1);
    assert.equal(idSimilarity('1-78-09-44621-80', '1780944621 80'), 1);
    assert.equal(idSimilarity('OB0243318', 'OB0243319'), 0.9);
    assert.equal(idSimilarity('OB0243318', 'OB0243381'), 0.9);
    assert.equal(idSimilarity('OB0243318', 'OB024318'), 0.9);
    assert.equal(idSimilarity('AB850901', 'AB85O901'), 0.9);
    assert.equal(idSimilarity('OB0243318', 'OB0245518'), 0.8);
    assert.equal(idSimilarity('178094462180', '178094462181'), 1 - 1 / 12);
    assert.equal(idSimilarity('12345', '12346'), 0.8);
    assert.equal(idSimilarity('', '123'), 0);
  });

  const realIds = (): string[] => {
    const xml = readFileSync(sharedData('un', 'consolidated.xml'), 'utf8');
    const ids = new Set<string>();
    for (const doc of xml.matchAll(/<INDIVIDUAL_DOCUMENT>([\s\S]*?)<\/INDIVIDUAL_DOCUMENT>/g)) {
      const n = /<NUMBER>([^<]*)<\/NUMBER>/.exec(doc[1]);
      if (n && n[1].trim()) ids.add(n[1].trim());
    }
    return [...ids];
  };

  test('real UN document numbers: one substitution, a missing dash or space still match', () => {
    const ids = realIds().filter((id) => /^[A-Z0-9 -]{6,20}$/i.test(id) && /\d{4}/.test(id));
    assert.ok(ids.length > 300, String(ids.length));
    for (const id of ids) {
      const compact = id.replace(/[ -]/g, '');
      const i = Math.floor(compact.length / 2);
      const substituted = compact.slice(0, i) + (compact[i] === '7' ? '8' : '7') + compact.slice(i + 1);
      assert.ok(idSimilarity(id, substituted) >= FUZZY_ID_THRESHOLD, `${id} ${substituted}`);
      assert.equal(idSimilarity(id, `${compact.slice(0, 2)}-${compact.slice(2)}`), 1);
      assert.equal(idSimilarity(id, `${compact.slice(0, 3)} ${compact.slice(3)}`), 1);
      assert.equal(idSimilarity(id, compact), 1);
    }
  });

  test('1,000 random IDs of real shapes: at least 99% match no UN document number', () => {
    // Keyed once: idSimilarity normalizes both sides, and canonical keys skip the Unicode work.
    const ids = realIds().map(normalizeGovernmentId);
    assert.equal(ids.length, 446);
    const rand = rng(20240901);
    const letter = () => String.fromCharCode(65 + Math.floor(rand() * 26));
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 10)).join('');
    const shapes = [
      () => letter() + letter() + digits(7),
      () => letter() + digits(7),
      () => letter() + digits(8),
      () => digits(9),
      () => digits(8),
      () => letter() + letter() + digits(6),
      () => digits(12),
      () => `${digits(3)}-${digits(8)}-${digits(2)}`,
    ];
    let matched = 0;
    for (let k = 0; k < 1000; k++) {
      const candidate = shapes[k % shapes.length]();
      if (ids.some((id) => idSimilarity(candidate, id) >= FUZZY_ID_THRESHOLD)) matched++;
    }
    assert.ok(matched <= 10, String(matched));
    assert.equal(matched, 0);
  });
});

describe('compare CLI', () => {
  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli.ts'), 'compare', ...args], { cwd: REPO_ROOT });

  test('two names print the score with 4 decimals', async () => {
    const { stdout } = await cli('Владимир Путин', 'Vladimir Putin');
    assert.equal(stdout, '1.0000\n');
    const generic = await cli('ACME TRADING LLC', 'GLOBAL TRADING LLC', '--json');
    assert.deepEqual(JSON.parse(generic.stdout), { score: 0.5 });
    const id = await cli('--id', 'OB 0243318', 'ob-0243319');
    assert.equal(id.stdout, '0.9000\n');
  });

  test('--pairs reads name1,name2 columns and prints one score per row, in order', async () => {
    const file = join(FIXTURES, 'normalize', 'pairs.csv');
    const { stdout } = await cli('--pairs', file);
    const expected = [
      ['Smith, John', 'John Smith'],
      ['ACME TRADING LLC', 'GLOBAL TRADING LLC'],
      ['Say "Hi" Ltd', 'Say Hi Limited'],
      ['Владимир Путин', 'Vladimir Putin'],
      ['VLADIMIR PUTIN', 'VLADIMR PUTIN'],
    ].map(([a, b]) => nameSimilarity(a, b).toFixed(4));
    assert.deepEqual(stdout.trimEnd().split('\n'), expected);
    assert.deepEqual(expected, ['1.0000', '0.5000', '1.0000', '1.0000', '0.9625']);
  });

  test('--help, usage errors and a file without the columns', async () => {
    const help = await cli('--help');
    assert.match(help.stdout, /--pairs FILE\.csv/);
    await assert.rejects(cli('only-one'), (err: { code: number; stderr: string }) => err.code === 2 && /usage/.test(err.stderr));
    await assert.rejects(cli('--pairs', join(FIXTURES, 'normalize', 'missing.csv')), (err: { code: number }) => err.code === 1);
    await assert.rejects(
      cli('--pairs', join(REPO_ROOT, 'package.json')),
      (err: { code: number; stderr: string }) => err.code === 1,
    );
  });
});
