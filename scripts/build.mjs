/**
 * `make build`: compiles the service, engine, loaders and benchmarks to dist/ with tsc (which also
 * typechecks them) and copies the files they read beside their modules. The service and the
 * benchmarks run from dist/: under tsx every function expression costs an
 * `Object.defineProperty` (esbuild's keepNames) on each call (docs/performance.md).
 */
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
for (const dir of ['src/store/migrations', 'loaders/data'])
  cpSync(join(root, dir), join(root, 'dist', dir), { recursive: true, filter: (f) => !f.endsWith('.ts') });
