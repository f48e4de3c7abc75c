import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join } from 'node:path';

/** Repository root (also from the compiled copy under dist/) and the shared real data (../shared/data beside the clone). */
const above = fileURLToPath(new URL('..', import.meta.url));
export const REPO_ROOT = basename(above) === 'dist' ? dirname(above) : above;
export const SHARED_DATA = join(REPO_ROOT, '..', 'shared', 'data');
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');

/** True when this code runs compiled from dist/ (then child processes run the compiled entry points too). */
export const COMPILED = import.meta.url.endsWith('.js');

/** The V8 flags `make run` starts the service with: a harness that runs the service does too. */
export const SERVICE_NODE_FLAGS = JSON.parse(
  readFileSync(join(REPO_ROOT, 'src', 'node-flags.json'), 'utf8'),
) as string[];

export function sharedData(...parts: string[]): string {
  return join(SHARED_DATA, ...parts);
}
