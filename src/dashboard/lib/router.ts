import { useEffect, useState } from 'preact/hooks';

/** A small history router over the paths under /dashboard (the server answers index.html for each). */
const BASE = '/dashboard';
const listeners = new Set<() => void>();

function currentPath(): string {
  const p = location.pathname.replace(/\/+$/, '');
  return p.startsWith(BASE) ? p.slice(BASE.length) || '/' : '/';
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = to.startsWith(BASE) ? to : `${BASE}${to}`;
  if (url === location.pathname + location.search) return;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

/** The path below /dashboard, re-rendering on navigation. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** Plain links to dashboard pages navigate without reloading (one listener for the whole app). */
export function interceptLinks(root: HTMLElement): () => void {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const href = a.getAttribute('href');
    if (!href || !href.startsWith(`${BASE}/`)) return;
    e.preventDefault();
    navigate(href);
  };
  root.addEventListener('click', onClick);
  return () => root.removeEventListener('click', onClick);
}
