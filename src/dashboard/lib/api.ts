import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '#contract';
import { session, signOut } from './session';

/** Response and request shapes of the API, from the generated OpenAPI types. */
export type Schemas = components['schemas'];

/** An API answer other than 2xx, with the service's `detail` as a readable message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** `{"detail": "..."}` or a FastAPI-style list of issues, as one line of text. */
export function detailText(body: unknown, status: number): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((i: { loc?: unknown[]; msg?: string }) => {
        const field = (i.loc ?? []).filter((p) => p !== 'body' && p !== 'query' && p !== 'path').join('.');
        return field ? `${field}: ${i.msg ?? 'invalid'}` : (i.msg ?? 'invalid');
      })
      .join('; ');
  }
  if ((body as { error?: unknown } | null)?.error) return String((body as { error: unknown }).error);
  return `HTTP ${status}`;
}

/**
 * Every call carries the session's token as a bearer header. A 401 means the token was revoked or
 * the operator session ended: the user is signed out at once.
 */
const auth: Middleware = {
  onRequest({ request }) {
    const s = session();
    if (s && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${s.token}`);
    return request;
  },
  onResponse({ response, request }) {
    if (response.status === 401 && session() && request.headers.get('Authorization') === `Bearer ${session()!.token}`) {
      signOut('Your session ended: the token was revoked or has expired. Sign in again.');
    }
    return response;
  },
};

export const client = createClient<paths>({ baseUrl: location.origin });
client.use(auth);

/** The data of a call and its response (for its headers), or an ApiError. */
export async function answer<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<{ data: T; response: Response }> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch {
    throw new ApiError(0, 'The service could not be reached. Check your connection and try again.');
  }
  const { data, error, response } = result;
  if (!response.ok) throw new ApiError(response.status, detailText(error, response.status));
  return { data: data as T, response };
}

/** The data of a call, or an ApiError. */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  return (await answer(pending)).data;
}
