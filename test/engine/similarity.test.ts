import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FUZZY_ID_THRESHOLD, idSimilarity } from '../../engine/similarity.js';
import { nameScore, prepareName } from '../../engine/names/index.js';
import { normalizeGovernmentId } from '../../engine/normalize/index.js';
import { FIXTURES, REPO_ROOT, sharedData } from '../../harness/paths.js';
import { rng } from '../../harness/random.js';

const run = promisify(execFile);

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
    run(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli.ts'), 'compare', ...args], {
      cwd: REPO_ROOT,
    });

  const score = (a: string, b: string) => nameScore(prepareName(a), prepareName(b)).toFixed(4);

  test("two names print the name matcher's score with 4 decimals", async () => {
    const { stdout } = await cli('Владимир Путин', 'Vladimir Putin');
    assert.equal(stdout, '1.0000\n');
    const generic = await cli('ACME TRADING LLC', 'GLOBAL TRADING LLC', '--json');
    assert.deepEqual(JSON.parse(generic.stdout), { score: Number(score('ACME TRADING LLC', 'GLOBAL TRADING LLC')) });
    assert.ok(JSON.parse(generic.stdout).score < 0.3);
    const typed = await cli('Siemens AG', 'SIEMENS', '--type', 'organization');
    assert.equal(typed.stdout, '1.0000\n');
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
    ].map(([a, b]) => score(a, b));
    assert.deepEqual(stdout.trimEnd().split('\n'), expected);
    assert.deepEqual(expected, ['1.0000', '0.1489', '1.0000', '1.0000', '0.9425']);
  });

  test('--help, usage errors and a file without the columns', async () => {
    const help = await cli('--help');
    assert.match(help.stdout, /--pairs FILE\.csv/);
    await assert.rejects(
      cli('only-one'),
      (err: { code: number; stderr: string }) => err.code === 2 && /usage/.test(err.stderr),
    );
    await assert.rejects(
      cli('a', 'b', '--type', 'ship'),
      (err: { code: number; stderr: string }) => err.code === 2 && /usage/.test(err.stderr),
    );
    await assert.rejects(
      cli('--pairs', join(FIXTURES, 'normalize', 'missing.csv')),
      (err: { code: number }) => err.code === 1,
    );
    await assert.rejects(
      cli('--pairs', join(REPO_ROOT, 'package.json')),
      (err: { code: number; stderr: string }) => err.code === 1,
    );
  });
});
