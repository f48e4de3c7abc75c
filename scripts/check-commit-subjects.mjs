/**
 * Every commit subject after the base commit is at most 72 characters: the subject says what the
 * commit does, the body holds the measurements and reasons. Commits before the base (the reformat
 * of this history's last session) are left as they are, since history is not rewritten.
 *   node scripts/check-commit-subjects.mjs [--base REV]
 * `npm run lint` runs it. A clone without the base commit (shallow) is skipped with a message.
 */
import { spawnSync } from 'node:child_process';

const MAX_SUBJECT = 72;
const DEFAULT_BASE = 'f57a46e';

const git = (args, cwd) => spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** Subjects longer than MAX_SUBJECT in base..HEAD, or null when the base is not in this clone's history. */
function longSubjects(base, cwd = process.cwd()) {
  if (git(['cat-file', '-e', `${base}^{commit}`], cwd).status !== 0) return null;
  if (git(['merge-base', '--is-ancestor', base, 'HEAD'], cwd).status !== 0) return null;
  const log = git(['log', '--format=%h%x09%s', `${base}..HEAD`], cwd);
  if (log.status !== 0) throw new Error(`git log failed: ${log.stderr.trim()}`);
  return log.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      return { hash: line.slice(0, tab), subject: line.slice(tab + 1) };
    })
    .filter((c) => [...c.subject].length > MAX_SUBJECT);
}

const i = process.argv.indexOf('--base');
const base = i > 0 ? process.argv[i + 1] : DEFAULT_BASE;
const long = longSubjects(base);
if (long === null) {
  console.log(`commit subjects: ${base} is not in this clone's history (shallow clone?), not checked`);
} else if (long.length > 0) {
  console.error(`commit subjects longer than ${MAX_SUBJECT} characters since ${base}:`);
  for (const c of long) console.error(`  ${c.hash} (${[...c.subject].length}) ${c.subject}`);
  process.exitCode = 1;
}
