import { buildOpenApiDocument, buildTrpcRouter } from '../api/trpc.js';
import { uploadHandler } from '../api/endpoints/lists.js';
import { IdempotencyStore } from '../billing/idempotency.js';
import { publicBaseUrl } from '../config.js';
import type { PipelineDeps } from '../core/pipeline.js';
import { createMcpServer, registerMcpRoute } from '../mcp/index.js';
import { createHttpApp, type HttpServer } from '../server/app.js';
import { registerBatchRoute } from '../server/batch-route.js';
import { registerUploadRoute } from '../server/upload-route.js';
import type { Billing } from './billing.js';
import type { WiringContext } from './context.js';
import type { Endpoints } from './endpoints.js';
import type { Lists } from './lists.js';
import type { Stores } from './stores.js';
import type { SubjectImports } from './subject-imports.js';

export interface FrontEnd {
  /** The request pipeline every transport runs (gate, handler, audit, settlement). */
  pipeline: PipelineDeps;
  idempotency: IdempotencyStore;
  http: HttpServer;
}

/** The request pipeline and the transports that run it: REST, tRPC, MCP, batch and upload routes. */
export function createFrontEnd(
  { config, log, now, kinds, metrics }: WiringContext,
  parts: { stores: Stores; lists: Lists; billing: Billing; endpoints: Endpoints; subjectImports: SubjectImports },
  validateResponses: boolean,
): FrontEnd {
  const { all: endpoints, batch, adminLists, accountLists, listsDeps } = parts.endpoints;
  const idempotency = new IdempotencyStore(parts.stores.db, log.child({ component: 'idempotency' }));
  idempotency.start();
  const pipeline: PipelineDeps = { gate: parts.billing.gate, log, now, validateOutput: validateResponses, idempotency };
  const trpcRouter = buildTrpcRouter(endpoints, pipeline);
  const mcp = createMcpServer({ endpoints, kinds, pipeline, log: log.child({ component: 'mcp' }) });
  let document: unknown = null;
  const http = createHttpApp({
    endpoints,
    pipeline,
    log,
    metrics,
    trustedProxies: config.TRUSTED_PROXIES,
    trpcRouter,
    openApiDocument: () => (document ??= buildOpenApiDocument(trpcRouter, endpoints, publicBaseUrl(config))),
    ready: () => parts.lists.manager().ready(),
    extraRoutes: (app, helpers) => {
      registerBatchRoute(app, helpers, batch);
      registerMcpRoute(app, helpers, mcp);
      for (const [eps, access] of [
        [adminLists, 'admin'],
        [accountLists, 'account'],
      ] as const) {
        const ep = eps.find((e) => e.id.endsWith('.lists.upload'))!;
        registerUploadRoute(app, helpers, ep, config.LIST_UPLOAD_MAX_BYTES, uploadHandler(listsDeps, access));
      }
      parts.subjectImports.routes(app, helpers);
    },
  });
  return { pipeline, idempotency, http };
}
