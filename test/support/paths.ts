import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Repository root and the shared real data (../shared/data beside the clone). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SHARED_DATA = join(REPO_ROOT, '..', 'shared', 'data');
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');

export function sharedData(...parts: string[]): string {
  return join(SHARED_DATA, ...parts);
}
