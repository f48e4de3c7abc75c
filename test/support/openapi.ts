import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/**
 * Validates live responses against the served OpenAPI 3.1 document: finds the operation by
 * method and path template, takes the response schema of the status, and checks the JSON body
 * with ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses).
 */
type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
};

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

export class OpenApiChecker {
  private readonly ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: { method: string; template: string; re: RegExp }[] = [];
  checked = 0;

  constructor(private readonly doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: doc.components } as never);
    for (const [template, item] of Object.entries(doc.paths)) {
      const re = new RegExp('^' + template.replace(/\{[^}]+\}/g, '[^/]+') + '$');
      for (const method of Object.keys(item)) this.templates.push({ method, template, re });
    }
  }

  static async load(baseUrl: string): Promise<OpenApiChecker> {
    return new OpenApiChecker((await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as Doc);
  }

  /** Throws when the body does not match the documented schema of (method, path, status). */
  check(method: string, url: string, status: number, body: unknown): void {
    const path = new URL(url).pathname;
    const m = method.toLowerCase();
    const op =
      this.templates.find((t) => t.method === m && t.re.test(path) && !/\{/.test(t.template)) ??
      this.templates.find((t) => t.method === m && t.re.test(path));
    if (!op) throw new Error(`no documented operation for ${method} ${path}`);
    const responses = this.doc.paths[op.template][op.method].responses;
    const response = responses[String(status)];
    if (!response) throw new Error(`status ${status} is not documented for ${method} ${op.template}`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return;
    const key = `${op.method} ${op.template} ${status}`;
    let validate: ValidateFunction | undefined = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as object);
      this.cache.set(key, validate);
    }
    if (!validate(body))
      throw new Error(`${key}: response does not match the document: ${this.ajv.errorsText(validate.errors)}`);
    this.checked++;
  }

  /** fetch, then check the JSON answer; returns status, headers and parsed body. */
  async fetchJson(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
    const res = await fetch(url, init);
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const body = type.startsWith('application/json') ? JSON.parse(text) : text;
    if (type.startsWith('application/json')) this.check(init.method ?? 'GET', url, res.status, body);
    return { status: res.status, headers: res.headers, body };
  }
}

function rewriteRefs(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/'));
}
