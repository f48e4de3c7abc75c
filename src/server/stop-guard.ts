import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { writeHead } from './uws-io.js';

const STOPPING_BODY = '{"detail":"Service is shutting down"}';

/** The answer to a request that arrives once the server is stopping: try another node, on a new connection. */
function refuseStopping(res: HttpResponse, req: HttpRequest): void {
  const head = req.getMethod() === 'head';
  res.cork(() => {
    // A HEAD answer has no body: bytes after its head would be read as the next answer. (This
    // uWS's endWithoutBody takes no close flag; the header tells the client to close.)
    writeHead(
      res,
      503,
      head
        ? { 'Content-Type': 'application/json', 'Retry-After': '1', Connection: 'close' }
        : { 'Content-Type': 'application/json', 'Retry-After': '1' },
    );
    if (head) res.endWithoutBody();
    else res.end(STOPPING_BODY, true);
  });
}

type Handler = (res: HttpResponse, req: HttpRequest) => void;

/**
 * The app with every route behind the stop check: once `stopping()`, a route's handler is not
 * run and the request is refused (503, connection closed). One boolean per request.
 */
export function guarded(app: TemplatedApp, stopping: () => boolean): TemplatedApp {
  const wrap =
    (handler: Handler): Handler =>
    (res, req) =>
      stopping() ? refuseStopping(res, req) : handler(res, req);
  return new Proxy(app, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (
        prop === 'get' ||
        prop === 'post' ||
        prop === 'del' ||
        prop === 'put' ||
        prop === 'patch' ||
        prop === 'head' ||
        prop === 'options' ||
        prop === 'any'
      ) {
        return (pattern: string, handler: Handler) => {
          (value as (p: string, h: Handler) => TemplatedApp).call(target, pattern, wrap(handler));
          return receiver as TemplatedApp;
        };
      }
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}
