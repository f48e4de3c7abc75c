// chdb names optional platform packages that were never published; `npm install` leaves them out
// of package-lock.json and `npm ci` then refuses the lockfile. Declaring them as optional entries
// for their own platforms makes npm skip them here. Run after every `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const unpublished = {
  '@chdb/lib-darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  '@chdb/lib-darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  '@chdb/lib-linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
};
const chdb = lock.packages['node_modules/chdb'];
let changed = false;
for (const [name, platform] of Object.entries(unpublished)) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  lock.packages[key] = { version: chdb.optionalDependencies[name], optional: true, ...platform };
  changed = true;
}
if (changed) writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(changed ? 'package-lock.json: added unpublished chdb platform entries' : 'package-lock.json: ok');
