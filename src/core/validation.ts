import type { z } from 'zod';
import { boundedEcho, ValidationFailed, valueIssue, type ValidationIssue } from './errors.js';

/**
 * Input parsing shared by every transport, reporting failures exactly as FastAPI/Pydantic v2 do:
 * `{"detail":[{"type","loc","msg","input","ctx"}]}` with Pydantic's type names and wording.
 */

export type Location = 'path' | 'query' | 'body';

export interface RawInput {
  /** Path parameters, already percent-decoded. */
  path: Record<string, string>;
  /** Query parameters; the first value of a repeated key wins (as FastAPI does for scalars). */
  query: Record<string, string>;
  /** Parsed JSON body of a POST (fields merge into the input object). */
  body?: unknown;
}

type AnyDef = { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; format?: string | null };

function defOf(schema: z.ZodType): AnyDef {
  return (schema as unknown as { _zod: { def: AnyDef } })._zod.def;
}

/** The scalar type under optional/default/nullable/pipe wrappers. */
function baseDef(schema: z.ZodType): AnyDef {
  let def = defOf(schema);
  for (;;) {
    if (
      (def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') &&
      def.innerType
    ) {
      def = defOf(def.innerType);
    } else if (def.type === 'pipe' && def.in) {
      def = defOf(def.in);
    } else {
      return def;
    }
  }
}

function isIntSchema(schema: z.ZodType): boolean {
  const s = schema as unknown as { format?: string | null; isInt?: boolean };
  return s.isInt === true || s.format === 'safeint' || s.format === 'int32' || s.format === 'uint32';
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (
      (def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') &&
      def.innerType
    )
      s = def.innerType;
    else return s;
  }
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

type Coercion = 'int' | 'float' | 'boolean' | 'string';
const coercions = new WeakMap<z.ZodType, Coercion>();

/** How a field's query/path string is converted, worked out once per schema field. */
function coercionOf(field: z.ZodType): Coercion {
  let c = coercions.get(field);
  if (c === undefined) {
    const base = baseDef(field);
    c =
      base.type === 'number'
        ? isIntSchema(unwrap(field))
          ? 'int'
          : 'float'
        : base.type === 'boolean'
          ? 'boolean'
          : 'string';
    coercions.set(field, c);
  }
  return c;
}

/**
 * Converts query/path strings to the types the schema expects (numbers, booleans) the way FastAPI
 * does, into `values`, leaving unparseable strings in place so that validation reports them with
 * the raw input. Returns `errors` with the failed conversions added (created on the first).
 */
function coerceInto(
  shape: Record<string, z.ZodType>,
  raw: Record<string, string>,
  values: Record<string, unknown>,
  errors: Map<string, ValidationIssue['type']> | null,
): Map<string, ValidationIssue['type']> | null {
  for (const key in raw) {
    // Own fields only: `?constructor=1` must not find Object.prototype's.
    if (!Object.hasOwn(shape, key)) continue;
    const field = shape[key];
    const str = raw[key];
    const coercion = coercionOf(field);
    if (coercion === 'string') {
      values[key] = str;
    } else if (coercion === 'boolean') {
      const v = str.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) values[key] = true;
      else if (['false', '0', 'no', 'off'].includes(v)) values[key] = false;
      else {
        values[key] = str;
        (errors ??= new Map()).set(key, 'bool_parsing');
      }
    } else {
      const int = coercion === 'int';
      if (int ? INT_RE.test(str.trim()) : FLOAT_RE.test(str.trim())) values[key] = Number(str);
      else {
        values[key] = str;
        (errors ??= new Map()).set(key, int ? 'int_parsing' : 'float_parsing');
      }
    }
  }
  return errors;
}

const PARSE_MESSAGES: Record<string, string> = {
  int_parsing: 'Input should be a valid integer, unable to parse string as an integer',
  float_parsing: 'Input should be a valid number, unable to parse string as a number',
  bool_parsing: 'Input should be a valid boolean, unable to interpret input',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function orList(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Maps one zod v4 issue to Pydantic's vocabulary; an object or array input is echoed bounded (see boundedEcho). */
export function toPydanticIssue(
  issue: z.core.$ZodIssue,
  loc: (string | number)[],
  rawInput: unknown,
  parseError?: string,
): ValidationIssue {
  const input = rawInput !== null && typeof rawInput === 'object' ? boundedEcho(rawInput) : rawInput;
  if (parseError) return { type: parseError, loc, msg: PARSE_MESSAGES[parseError] ?? 'Invalid input', input };
  const i = issue as z.core.$ZodIssue & Record<string, unknown>;
  switch (issue.code) {
    case 'invalid_type': {
      if (input === undefined) return { type: 'missing', loc, msg: 'Field required', input: null };
      const expected = String(i.expected);
      if (expected === 'string') return { type: 'string_type', loc, msg: 'Input should be a valid string', input };
      if (expected === 'number' || expected === 'int')
        return { type: 'int_type', loc, msg: 'Input should be a valid integer', input };
      if (expected === 'boolean') return { type: 'bool_type', loc, msg: 'Input should be a valid boolean', input };
      if (expected === 'array') return { type: 'list_type', loc, msg: 'Input should be a valid list', input };
      if (expected === 'object')
        return {
          type: 'model_attributes_type',
          loc,
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input,
        };
      return { type: `${expected}_type`, loc, msg: `Input should be a valid ${expected}`, input };
    }
    case 'too_small': {
      const min = Number(i.minimum);
      if (i.origin === 'string')
        return {
          type: 'string_too_short',
          loc,
          msg: `String should have at least ${plural(min, 'character')}`,
          input,
          ctx: { min_length: min },
        };
      if (i.origin === 'array' || i.origin === 'set')
        return {
          type: 'too_short',
          loc,
          msg: `List should have at least ${plural(min, 'item')} after validation, not ${Array.isArray(input) ? input.length : 0}`,
          input,
          ctx: { field_type: 'List', min_length: min, actual_length: Array.isArray(input) ? input.length : 0 },
        };
      if (i.inclusive === false)
        return { type: 'greater_than', loc, msg: `Input should be greater than ${min}`, input, ctx: { gt: min } };
      return {
        type: 'greater_than_equal',
        loc,
        msg: `Input should be greater than or equal to ${min}`,
        input,
        ctx: { ge: min },
      };
    }
    case 'too_big': {
      const max = Number(i.maximum);
      if (i.origin === 'string')
        return {
          type: 'string_too_long',
          loc,
          msg: `String should have at most ${plural(max, 'character')}`,
          input,
          ctx: { max_length: max },
        };
      if (i.origin === 'array' || i.origin === 'set')
        return {
          type: 'too_long',
          loc,
          msg: `List should have at most ${plural(max, 'item')} after validation, not ${Array.isArray(input) ? input.length : 0}`,
          input,
          ctx: { field_type: 'List', max_length: max, actual_length: Array.isArray(input) ? input.length : 0 },
        };
      if (i.inclusive === false)
        return { type: 'less_than', loc, msg: `Input should be less than ${max}`, input, ctx: { lt: max } };
      return {
        type: 'less_than_equal',
        loc,
        msg: `Input should be less than or equal to ${max}`,
        input,
        ctx: { le: max },
      };
    }
    case 'invalid_format': {
      if (i.format === 'regex') {
        const pattern = String(i.pattern ?? '').replace(/^\/|\/[a-z]*$/g, '');
        return {
          type: 'string_pattern_mismatch',
          loc,
          msg: `String should match pattern '${pattern}'`,
          input,
          ctx: { pattern },
        };
      }
      return valueIssue(loc, issue.message, input);
    }
    case 'invalid_value': {
      const values = (i.values as unknown[]) ?? [];
      const expected = orList(values);
      return { type: 'literal_error', loc, msg: `Input should be ${expected}`, input, ctx: { expected } };
    }
    case 'unrecognized_keys':
      return { type: 'extra_forbidden', loc, msg: 'Extra inputs are not permitted', input };
    case 'invalid_union':
      return {
        type: 'union_error',
        loc,
        msg: `Input should match one of the allowed shapes (got ${jsonType(input)})`,
        input,
      };
    default:
      return valueIssue(loc, issue.message, input);
  }
}

/** The value at a zod issue's path inside the validated input. */
export function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p as string];
  }
  return cur;
}

/**
 * Validates a request's path, query and body against an endpoint's input object schema. Returns
 * the parsed input or throws ValidationFailed (422) with one item per problem, ordered as the
 * schema's fields.
 */
export function parseInput<S extends z.ZodObject>(
  schema: S,
  raw: RawInput,
  bodyLocation: Location = 'body',
): z.output<S> {
  const shape = schema.shape as Record<string, z.ZodType>;
  refuseNul(raw.path, 'path');
  refuseNul(raw.query, 'query');
  const body = raw.body;
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw new ValidationFailed([
      {
        type: 'model_attributes_type',
        loc: [bodyLocation],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: body,
      },
    ]);
  }
  // Body fields, then query parameters, then path parameters: a later source wins a name.
  const merged: Record<string, unknown> = body === undefined ? {} : { ...(body as Record<string, unknown>) };
  const parseErrors = coerceInto(shape, raw.path, merged, coerceInto(shape, raw.query, merged, null));
  const result = schema.safeParse(merged);
  if (result.success) return result.data;
  const rawStrings: Record<string, string> = { ...raw.query, ...raw.path };
  const issues = result.error.issues.map((issue) => {
    const [head, ...rest] = issue.path;
    const key = String(head ?? '');
    const where: Location =
      key in raw.path ? 'path' : body !== undefined && !(key in raw.query) ? bodyLocation : 'query';
    const loc =
      head === undefined ? [where] : [where, key, ...rest.map((p) => (typeof p === 'number' ? p : String(p)))];
    const input = rest.length === 0 && key in rawStrings ? rawStrings[key] : valueAt(merged, issue.path);
    return toPydanticIssue(issue, loc, input, rest.length === 0 ? parseErrors?.get(key) : undefined);
  });
  throw new ValidationFailed(issues);
}

/** Deepest nesting of arrays and objects a JSON body may have (the body itself is level 1). */
const MAX_JSON_DEPTH = 64;

const NUL_MESSAGE = 'NUL characters (U+0000) are not allowed';

function nulIssue(loc: (string | number)[], input: string): ValidationIssue {
  return valueIssue(loc, NUL_MESSAGE, input);
}

/** Query and path strings with a NUL character: no store takes it (PostgreSQL text cannot hold one). */
function refuseNul(values: Record<string, string>, where: Location): void {
  for (const key in values)
    if (values[key].includes('\0')) throw new ValidationFailed([nulIssue([where, key], values[key])]);
}

/**
 * Where a parsed body breaks the body rules: the path to the first array or object nested deeper
 * than MAX_JSON_DEPTH, or (when `nul`) to the first string holding a NUL character. `value` sits
 * at `depth` (the body itself at 1). The walk never goes deeper than the limit, so it is safe on
 * any input (JSON.parse itself is not recursive and takes any depth; what comes after it —
 * validation, error echoes, JSON.stringify — must not see more). The elements of the body's
 * field `opaque` are skipped for depth: their endpoint checks each itself (batch items).
 */
function bodyProblem(
  value: unknown,
  nul: boolean,
  depth: number,
  opaque?: string,
): { path: (string | number)[]; kind: 'depth' | 'nul'; input?: string } | null {
  const path: (string | number)[] = [];
  const walk = (v: unknown, d: number): 'depth' | 'nul' | null => {
    if (typeof v === 'string') return nul && v.includes('\0') ? 'nul' : null;
    if (v === null || typeof v !== 'object') return null;
    if (d > MAX_JSON_DEPTH) return 'depth';
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e: unknown = v[i];
        if (typeof e !== 'object' && !nul) continue;
        const found = walk(e, d + 1);
        if (found) return (path.unshift(i), found);
      }
      return null;
    }
    for (const key in v) {
      const e = (v as Record<string, unknown>)[key];
      if (typeof e !== 'object' && !nul) continue;
      if (!nul && d === 1 && key === opaque && Array.isArray(e)) continue;
      const found = walk(e, d + 1);
      if (found) return (path.unshift(key), found);
    }
    return null;
  };
  const kind = walk(value, depth);
  if (!kind) return null;
  return { path, kind, input: kind === 'nul' ? (valueAt(value, path) as string) : undefined };
}

/**
 * Parses a JSON request body, reporting a syntax error as Pydantic's `json_invalid`. An empty body
 * is an empty object, so an action without fields (`POST .../test`) needs none and a missing
 * field is reported at its own `["body", name]`. A body nested deeper than MAX_JSON_DEPTH is a
 * `json_invalid` too, and a string with a NUL character a `value_error` at its place. `opaque`:
 * a top-level array field whose elements the endpoint checks for depth itself (checkBodyRules).
 */
export function parseJsonBody(text: string, opaque?: string): unknown {
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const pos = Number(/position (\d+)/.exec(message)?.[1] ?? 0);
    throw new ValidationFailed([
      { type: 'json_invalid', loc: ['body', pos], msg: 'JSON decode error', input: {}, ctx: { error: message } },
    ]);
  }
  // A NUL can only arrive escaped, so the walk looks for one only when the text has the escape.
  throwBodyProblem(bodyProblem(body, text.includes('\\u0000'), 1, opaque), []);
  return body;
}

/**
 * Throws the 422 of a value nested deeper than MAX_JSON_DEPTH or holding a NUL character in a
 * string (`nul` false: the caller knows there is none). `at`: where the value sits in the body
 * (a batch item: `['items', i]`); by default it is the body (or tool arguments, or tRPC input).
 */
export function checkBodyRules(value: unknown, nul = true, at: (string | number)[] = []): void {
  throwBodyProblem(bodyProblem(value, nul, 1 + at.length), at);
}

function throwBodyProblem(problem: ReturnType<typeof bodyProblem>, at: (string | number)[]): void {
  if (problem?.kind === 'depth') {
    const error = `nesting deeper than ${MAX_JSON_DEPTH} levels`;
    throw new ValidationFailed([
      {
        type: 'json_invalid',
        loc: ['body', ...at, ...problem.path],
        msg: 'JSON decode error',
        input: {},
        ctx: { error },
      },
    ]);
  }
  if (problem?.kind === 'nul') throw new ValidationFailed([nulIssue(['body', ...at, ...problem.path], problem.input!)]);
}

/**
 * The depth bound for a transport that parses the body itself (/trpc, /mcp): throws its 422 when
 * the text is JSON nested deeper than MAX_JSON_DEPTH. Text that is not JSON is left to the
 * transport's own error, and NUL characters to checkBodyRules on the input it hands over.
 */
export function checkJsonDepth(text: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  checkBodyRules(body, false);
}
