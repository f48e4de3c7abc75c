/** Types of dashboard-size.mjs (run by plain node at build time, read by the tests). */
export const BUDGET_BYTES: number;
export function firstViewSize(outDir: string): { files: string[]; gzipped: number; raw: number };
export function reviewViewSize(outDir: string): { files: string[]; gzipped: number; raw: number };
