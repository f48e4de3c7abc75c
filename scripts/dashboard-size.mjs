/**
 * The dashboard's size budget: the JavaScript a browser loads for sign-in plus the overview with
 * its charts, gzipped, must stay within BUDGET_BYTES, and so must what an analyst loads for the
 * review queue and an alert. Read from Vite's manifest: the entry chunk, the pages' chunks, and
 * every chunk they import statically.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const BUDGET_BYTES = 150 * 1024;
const FIRST_VIEW = ['index.html', 'pages/overview.tsx'];
const REVIEW_VIEW = ['index.html', 'pages/alerts.tsx', 'pages/alert.tsx'];

/** Bytes (gzipped, as written beside each file at build) of the first view's JavaScript. */
export function firstViewSize(outDir) {
  return viewSize(outDir, FIRST_VIEW);
}

/** Bytes of the JavaScript of the review queue and the alert page, with sign-in. */
export function reviewViewSize(outDir) {
  return viewSize(outDir, REVIEW_VIEW);
}

function viewSize(outDir, keys) {
  const manifest = JSON.parse(readFileSync(join(outDir, '.vite', 'manifest.json'), 'utf8'));
  const files = new Set();
  const visit = (key) => {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the dashboard's build manifest`);
    if (files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  keys.forEach(visit);
  const js = [...files].filter((f) => f.endsWith('.js')).sort();
  const gzipped = js.reduce((sum, f) => sum + statSync(join(outDir, `${f}.gz`)).size, 0);
  const raw = js.reduce((sum, f) => sum + statSync(join(outDir, f)).size, 0);
  return { files: js, gzipped, raw };
}
