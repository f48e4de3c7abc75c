import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { builtOnce } from './cache.js';
import { REPO_ROOT } from './paths.js';

/**
 * The service's code as JavaScript, for the tests that run it as a separate process. Under tsx a
 * process spends seconds of CPU in tsx's module hooks before the service starts (5.8 s of user
 * time to import src/service.ts against 2.5 s for the compiled copy, load 12), and runs slower
 * after (esbuild's keepNames wraps every function expression). `make build` (tsc, ~45 s of CPU)
 * is not part of `make test`, so the harness transpiles the sources file by file once per source
 * digest (a few seconds) into .tmp; each module keeps its path, so the engine's workers, the
 * migrations and node_modules are found as from src/.
 */
const TREES = ['src', 'engine', 'loaders'];
/** The dashboard's own sources (vite builds them into dist/dashboard); the service only serves the build. */
const SKIPPED = join('src', 'dashboard');

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(REPO_ROOT, dir)).sort()) {
      const p = join(dir, name);
      if (p === SKIPPED || name.endsWith('.d.ts')) continue;
      if (statSync(join(REPO_ROOT, p)).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  for (const tree of TREES) walk(tree);
  return out;
}

let built: Promise<string> | undefined;

/** The transpiled entry point (`node <it>` runs the service as `make run` does), built on first use. */
export function transpiledServiceMain(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  const ts = (await import('typescript')).default;
  const files = sourceFiles();
  const h = createHash('sha256').update(ts.version);
  for (const f of files) h.update(f).update(readFileSync(join(REPO_ROOT, f)));
  const dir = await builtOnce(`test-service-${h.digest('hex').slice(0, 16)}`, async (out) => {
    for (const f of files) {
      const target = join(out, f.endsWith('.ts') ? `${f.slice(0, -3)}.js` : f);
      mkdirSync(dirname(target), { recursive: true });
      if (!f.endsWith('.ts')) {
        copyFileSync(join(REPO_ROOT, f), target);
        continue;
      }
      const { outputText } = ts.transpileModule(readFileSync(join(REPO_ROOT, f), 'utf8'), {
        fileName: f,
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
      });
      writeFileSync(target, outputText);
    }
    // The service looks for the built dashboard in dist/ beside its sources' parent directory.
    symlinkSync(relative(out, join(REPO_ROOT, 'dist')), join(out, 'dist'));
  });
  return join(dir, 'src', 'main.js');
}
