import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../harness/paths.js';

const script = join(REPO_ROOT, 'scripts', 'check-commit-subjects.mjs');
const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', [...identity, ...args], { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

function check(cwd: string, base: string) {
  return spawnSync(process.execPath, [script, '--base', base], { cwd, encoding: 'utf8' });
}

test('commit subjects: only those after the base are checked, at most 72 characters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'subjects-'));
  try {
    git(dir, 'init', '-q');
    git(dir, 'commit', '-q', '--allow-empty', '-m', `An old subject of 73 characters ${'x'.repeat(41)}`);
    const base = git(dir, 'rev-parse', '--short', 'HEAD');
    git(dir, 'commit', '-q', '--allow-empty', '-m', `Exactly 72 characters ${'y'.repeat(50)}`);
    const ok = check(dir, base);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stderr, '');

    const long = `Say everything in the subject line, ${'z'.repeat(37)}`;
    git(dir, 'commit', '-q', '--allow-empty', '-m', long, '-m', 'The body may be as long as it needs.');
    const hash = git(dir, 'rev-parse', '--short', 'HEAD');
    const failed = check(dir, base);
    assert.equal(failed.status, 1);
    assert.equal(failed.stderr, `commit subjects longer than 72 characters since ${base}:\n  ${hash} (73) ${long}\n`);

    const shallow = check(dir, '0123456789abcdef0123456789abcdef01234567');
    assert.equal(shallow.status, 0);
    assert.match(shallow.stdout, /is not in this clone's history \(shallow clone\?\), not checked/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
