import { initTRPC, TRPCError, type AnyRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { RawResponse, type AnyEndpoint, type RequestMeta } from '../core/endpoint.js';
import { HttpError, badRequest } from '../core/errors.js';
import { execute, type PipelineDeps } from '../core/pipeline.js';
import { checkBodyRules, toPydanticIssue } from '../core/validation.js';
import { ErrorDetail, HTTPValidationError, PaymentRequired, ValidationError } from './schemas/errors.js';
import { openApiTags, TAGS } from './tags.js';

/**
 * The tRPC side of the endpoint definitions: one procedure per endpoint (served at /trpc with
 * batching), and the OpenAPI 3.1 document generated from those procedures by trpc-to-openapi.
 */

export interface TrpcContext {
  meta: RequestMeta;
  resHeaders: Headers;
}

const t = initTRPC
  .context<TrpcContext>()
  .meta<OpenApiMeta>()
  .create({
    // Never a stack trace in an answer (tRPC adds one in development mode): the log has it.
    isDev: false,
    errorFormatter({ shape, error, ctx }) {
      const cause = error.cause;
      const request_id = ctx?.meta.requestId;
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        // An unexpected failure's own message may name internals; the client gets the request id to quote.
        return {
          ...shape,
          message: 'Internal Server Error',
          data: {
            code: shape.data.code,
            httpStatus: shape.data.httpStatus,
            path: shape.data.path,
            detail: 'Internal Server Error',
            request_id,
          },
        };
      }
      let detail: unknown = shape.message;
      if (cause instanceof HttpError) detail = cause.toBody();
      else if (cause instanceof z.ZodError) {
        detail = {
          detail: cause.issues.map((i) =>
            toPydanticIssue(i, ['body', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))], undefined),
          ),
        };
      }
      return { ...shape, data: { ...shape.data, detail, request_id } };
    },
  });

const CODES: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

function toTrpcError(err: unknown): TRPCError {
  if (err instanceof TRPCError) return err;
  if (err instanceof HttpError) {
    return new TRPCError({
      code: CODES[err.status] ?? 'INTERNAL_SERVER_ERROR',
      message: typeof err.detail === 'string' ? err.detail : `HTTP ${err.status}`,
      cause: err,
    });
  }
  return new TRPCError({
    code: 'INTERNAL_SERVER_ERROR',
    message: 'Internal Server Error',
    cause: err instanceof Error ? err : undefined,
  });
}

function openApiMeta(ep: AnyEndpoint): OpenApiMeta {
  return {
    openapi: {
      method: ep.method,
      path: `/api/v1${ep.path}` as `/${string}`,
      summary: ep.summary,
      description: ep.description,
      tags: ep.tags,
      protect: ep.access !== 'public',
      errorResponses: [],
      operationId: ep.id.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase()),
    },
  };
}

/** Nests `a.b.c` ids into tRPC router records. */
function nest(procedures: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [id, proc] of Object.entries(procedures)) {
    const parts = id.split('.');
    let node = root;
    for (const p of parts.slice(0, -1)) {
      node = (node[p] ??= {}) as Record<string, unknown>;
      // A procedure cannot also be a router: `a.b` and `a.b.c` would lose one of them.
      if (typeof node === 'function') throw new Error(`procedure id ${id} extends the id of another procedure`);
    }
    if (Object.hasOwn(node, parts[parts.length - 1])) throw new Error(`procedure id ${id} is taken`);
    node[parts[parts.length - 1]] = proc;
  }
  const toRouter = (rec: Record<string, unknown>): unknown =>
    t.router(
      Object.fromEntries(
        Object.entries(rec).map(([k, v]) => [k, typeof v === 'function' ? v : toRouter(v as Record<string, unknown>)]),
      ) as never,
    );
  return toRouter(root) as Record<string, unknown>;
}

export function buildTrpcRouter(endpoints: readonly AnyEndpoint[], deps: PipelineDeps): AnyRouter {
  const procedures: Record<string, unknown> = {};
  for (const ep of endpoints) {
    const base = t.procedure.meta(openApiMeta(ep)).input(ep.input).output(ep.output);
    const resolve = async ({ input, ctx }: { input: unknown; ctx: TrpcContext }) => {
      try {
        checkBodyRules(input);
        const outcome = await execute(ep, input, ctx.meta, deps);
        if (outcome.raw instanceof RawResponse) {
          throw badRequest('this format is only available over REST');
        }
        for (const [k, v] of Object.entries(outcome.headers)) ctx.resHeaders.set(k, v);
        return outcome.body;
      } catch (err) {
        throw toTrpcError(err);
      }
    };
    procedures[ep.id] = ep.method === 'GET' ? base.query(resolve) : base.mutation(resolve);
  }
  return nest(procedures) as unknown as AnyRouter;
}

type OpenApiDoc = ReturnType<typeof generateOpenApiDocument>;
type Operation = {
  responses?: Record<string, unknown>;
  security?: unknown;
  parameters?: unknown[];
  requestBody?: unknown;
};

const SECURITY = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'API token from the dashboard: `Authorization: Bearer <token>`.',
  },
  x402: {
    type: 'apiKey',
    in: 'header',
    name: 'PAYMENT-SIGNATURE',
    description: 'x402 v2 pay-per-request: base64 payment payload answering the PAYMENT-REQUIRED challenge.',
  },
  x402v1: {
    type: 'apiKey',
    in: 'header',
    name: 'X-PAYMENT',
    description: 'x402 v1 pay-per-request: base64 payment payload answering the 402 body.',
  },
  adminKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Operator key (ADMIN_KEY) as a bearer token, or an operator session token (`op_…`, one hour) from POST /api/v1/admin/session.',
  },
} as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonResponse = (description: string, schemaName: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref(schemaName) } },
});

/** Generates the OpenAPI 3.1 document and puts the service's own error shapes and security on each operation. */
export function buildOpenApiDocument(
  router: AnyRouter,
  endpoints: readonly AnyEndpoint[],
  baseUrl: string,
): OpenApiDoc {
  const doc = generateOpenApiDocument(router as never, {
    title: 'Sanctions and Risk Screening API',
    description:
      'Screens crypto addresses, ENS names, e-mails, websites, government IDs and countries against sanctions, crime and risk lists. ' +
      'Metered endpoints take a bearer token or an x402 stablecoin payment per request.',
    version: '2.0.0',
    baseUrl,
    docsUrl: `${baseUrl}/docs`,
    securitySchemes: SECURITY as never,
    defs: { ErrorDetail, HTTPValidationError, ValidationError, PaymentRequired } as never,
  });
  for (const ep of endpoints) {
    if (ep.tags.length !== 1 || !Object.hasOwn(TAGS, ep.tags[0]))
      throw new Error(`${ep.id}: tags ${JSON.stringify(ep.tags)} are not one tag of src/api/tags.ts`);
  }
  doc.tags = openApiTags();
  const byPath = new Map(endpoints.map((ep) => [`${ep.method.toLowerCase()} /api/v1${ep.path}`, ep]));
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
      const ep = byPath.get(`${method} ${path}`);
      if (!ep || !op || typeof op !== 'object') continue;
      const responses: Record<string, unknown> = { ...(op.responses ?? {}) };
      const statuses = new Set<number>(ep.errors ?? []);
      if (Object.keys(ep.input.shape).length > 0) statuses.add(422);
      if (ep.access === 'metered') {
        statuses.add(401);
        statuses.add(402);
      }
      if (ep.access === 'account' || ep.access === 'admin') statuses.add(401);
      // A token without the endpoint's scope (`screen` for metered, `dashboard` for account).
      if (ep.access === 'metered' || ep.access === 'account') statuses.add(403);
      for (const status of [...statuses].sort()) {
        if (status === 422) responses['422'] = jsonResponse('Validation Error', 'HTTPValidationError');
        // A metered endpoint's 402 is the x402 challenge; an account endpoint's (credits short) an error.
        else if (status === 402 && ep.access === 'metered')
          responses['402'] = jsonResponse(
            'Payment required: the x402 v1 challenge (body) and v2 challenge (PAYMENT-REQUIRED header)',
            'PaymentRequired',
            {
              'PAYMENT-REQUIRED': { description: 'base64 JSON of the x402 v2 challenge', schema: { type: 'string' } },
            },
          );
        else if (status === 429)
          responses['429'] = jsonResponse('Too many requests', 'ErrorDetail', {
            'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
          });
        else responses[String(status)] = jsonResponse(ERROR_TEXT[status] ?? 'Error', 'ErrorDetail');
      }
      op.responses = responses;
      if (ep.headers) {
        const ok = responses['200'] as { headers?: Record<string, unknown> } | undefined;
        if (ok)
          ok.headers = {
            ...(ok.headers ?? {}),
            ...Object.fromEntries(
              Object.entries(ep.headers).map(([k, d]) => [k, { description: d, schema: { type: 'string' } }]),
            ),
          };
      }
      if (ep.accepted && responses['200']) {
        responses['202'] = {
          ...(responses['200'] as object),
          description: 'Accepted: the operation goes on; poll it at Location',
          headers: { Location: { description: 'Where to poll the operation', schema: { type: 'string' } } },
        };
      }
      if (ep.created && responses['200'])
        responses['201'] = { ...(responses['200'] as object), description: 'Created: the resource was new' };
      if (ep.rawBody) {
        // The body is the content itself; the other input fields are query parameters.
        const bodyFields = Object.keys(ep.input.shape).filter((k) => !ep.path.includes(`{${k}}`));
        op.parameters = [
          ...(op.parameters ?? []),
          ...bodyFields.map((name) => ({
            name,
            in: 'query',
            required: false,
            schema: z.toJSONSchema(ep.input.shape[name], { io: 'input', unrepresentable: 'any' }),
          })),
        ];
        op.requestBody = {
          required: true,
          content: Object.fromEntries(
            Object.entries(ep.rawBody).map(([type, description]) => [
              type,
              { schema: { type: type === 'application/json' ? 'array' : 'string', description } },
            ]),
          ),
        };
      }
      if (ep.access === 'metered') {
        op.security = [{ bearer: [] }, { x402: [] }, { x402v1: [] }];
        const ok = responses['200'] as { headers?: Record<string, unknown> } | undefined;
        if (ok) {
          ok.headers = {
            ...(ok.headers ?? {}),
            'PAYMENT-RESPONSE': {
              description: 'x402 v2 receipt (base64 JSON), when paid with PAYMENT-SIGNATURE',
              schema: { type: 'string' },
            },
            'X-PAYMENT-RESPONSE': {
              description: 'x402 v1 receipt (base64 JSON), when paid with X-PAYMENT',
              schema: { type: 'string' },
            },
          };
        }
      } else if (ep.access === 'account') op.security = [{ bearer: [] }];
      else if (ep.access === 'admin') op.security = [{ adminKey: [] }];
      else op.security = [];
    }
  }
  return doc;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, invalid or revoked credentials',
  403: 'Forbidden: the token lacks the scope this endpoint needs (`screen` for metered endpoints, `dashboard` for /account)',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  502: 'Upstream failure',
  503: 'Service unavailable',
};
