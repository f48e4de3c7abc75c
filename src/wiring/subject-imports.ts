import type { TemplatedApp } from 'uWebSockets.js';
import { importHandler, subjectImportEndpoints } from '../api/endpoints/subject-imports.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import type { RouteHelpers } from '../server/app.js';
import { registerSubjectImportRoute } from '../server/subject-import-route.js';
import { ImportJobs } from '../subjects/import-jobs.js';
import { SubjectImporter } from '../subjects/importer.js';
import type { SubjectScreener } from '../subjects/screen.js';
import type { SubjectStore } from '../subjects/store.js';
import type { Billing } from './billing.js';
import type { WiringContext } from './context.js';
import type { Stores } from './stores.js';

/** Largest import body: a million rows of about a kilobyte each. */
const IMPORT_MAX_BYTES = 1 << 30;

export interface SubjectImports {
  importer: SubjectImporter;
  endpoints: AnyEndpoint[];
  /** Registers the streamed REST routes of the two import endpoints. */
  routes(app: TemplatedApp, helpers: RouteHelpers): void;
}

/** Bulk imports of subjects, after failing the ones a previous run of this node left running. */
export async function startSubjectImports(
  { config, log, now, node }: WiringContext,
  { db, audit }: Stores,
  billing: Billing,
  subjects: { store: SubjectStore; screener: SubjectScreener },
): Promise<SubjectImports> {
  const jobs = new ImportJobs(db, { node, log: log.child({ component: 'subject-imports' }) });
  const importer = new SubjectImporter({
    db,
    store: subjects.store,
    screener: subjects.screener,
    jobs,
    quota: billing.quota,
    audit: billing.alertingMatches,
    usage: audit.usage,
    thresholdOf: async (customerId) => {
      const { rows } = await db.query<{ t: number }>('SELECT name_threshold AS t FROM customers WHERE id = $1', [
        customerId,
      ]);
      return rows[0]?.t ?? 0.7;
    },
    dataDir: config.DATA_DIR,
    maxRows: config.SUBJECT_IMPORT_MAX_ROWS,
    node,
    log: log.child({ component: 'subject-imports' }),
    now,
  });
  await importer.recover();
  const deps = {
    maxRows: config.SUBJECT_IMPORT_MAX_ROWS,
    importer,
    jobs,
    customerExists: async (id: number) =>
      (await db.query('SELECT 1 FROM customers WHERE id = $1', [id])).rows.length > 0,
  };
  const endpoints = subjectImportEndpoints(deps);
  return {
    importer,
    endpoints,
    routes(app, helpers) {
      for (const access of ['account', 'admin'] as const) {
        const ep = endpoints.find(
          (e) => e.id === (access === 'account' ? 'subjects.import' : 'admin.subjects.import'),
        )!;
        registerSubjectImportRoute(app, helpers, ep, IMPORT_MAX_BYTES, importHandler(deps, access));
      }
    },
  };
}
