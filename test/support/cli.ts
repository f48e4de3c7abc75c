import { execFile } from 'node:child_process';
import { REPO_ROOT } from '../../harness/paths.js';

/** Runs the operator CLI (`src/cli.ts` through tsx) with only `env` (and PATH) as its environment. */
export function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
