import { Component, type ComponentChildren, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSessionChange, session, signOut, type Session } from './lib/session';
import { interceptLinks, navigate, usePath } from './lib/router';
import { CUSTOMER_ROUTES, OPERATOR_ROUTES, match, type PageModule, type Route } from './lib/routes';
import { client } from './lib/api';
import { SignIn } from './pages/sign-in';
import { Alert } from './components/ui';

function useSession(): Session | null {
  const [s, setS] = useState(session);
  useEffect(() => onSessionChange(() => setS(session())), []);
  return s;
}

/** A render error shows a message in place of the page, never a blank screen. */
class Boundary extends Component<{ children: ComponentChildren }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static override getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    if (this.state.error) {
      return (
        <Alert kind="error">
          This page failed to render: {this.state.error.message}{' '}
          <button type="button" class="link" onClick={() => location.reload()}>
            Reload
          </button>
        </Alert>
      );
    }
    return this.props.children;
  }
}

function LazyPage({ route, params }: { route: Route; params: Record<string, string> }) {
  const [page, setPage] = useState<{ route: Route; C: ComponentType<{ params: Record<string, string> }> } | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    setFailed(false);
    route.load().then(
      (m: PageModule) => live && setPage({ route, C: m.default }),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [route]);
  if (failed) {
    return (
      <Alert kind="error">
        This page could not be loaded: the service could not be reached. Check your connection, then{' '}
        <button type="button" class="link" onClick={() => location.reload()}>
          reload
        </button>
        .
      </Alert>
    );
  }
  if (!page || page.route !== route)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  return <page.C params={params} />;
}

/** The menu entry of a route: itself, or for a page not in the menu (one customer) the entry it sits below. */
function navRoute(routes: Route[], current: Route | null): Route | null {
  if (!current || current.nav) return current;
  const below = routes.filter((r) => r.nav && current.path.startsWith(`${r.path}/`));
  return below.sort((a, b) => b.path.length - a.path.length)[0] ?? null;
}

function Shell({
  s,
  routes,
  current,
  children,
}: {
  s: Session;
  routes: Route[];
  current: Route | null;
  children: ComponentChildren;
}) {
  const out = async () => {
    // The operator's session token is revoked on the server; a customer's API token stays valid (it is theirs).
    if (s.kind === 'operator') await client.DELETE('/api/v1/admin/session').catch(() => undefined);
    signOut();
  };
  const highlighted = navRoute(routes, current);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={s.kind === 'operator' ? '/dashboard/admin' : '/dashboard/overview'}>
          Screening <span>{s.kind === 'operator' ? 'operator' : 'dashboard'}</span>
        </a>
        <div class="topbar-right">
          <a href="/docs" target="_blank" rel="noopener">
            API reference
          </a>
          <span class="who" data-testid="who">
            {s.name}
          </span>
          <button type="button" class="secondary" onClick={() => void out()}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Pages">
        <ul>
          {routes
            .filter((r) => r.nav)
            .map((r) => (
              <li key={r.path}>
                <a href={`/dashboard${r.path}`} aria-current={highlighted === r ? 'page' : undefined}>
                  {r.title}
                </a>
              </li>
            ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

export function App() {
  const s = useSession();
  const path = usePath();
  useEffect(() => interceptLinks(document.body), []);
  useEffect(() => {
    if (!s?.expiresAt) return;
    const left = Date.parse(s.expiresAt) - Date.now();
    const timer = setTimeout(
      () => signOut('Your operator session expired. Sign in again.'),
      Math.max(0, Math.min(left, 2 ** 31 - 1)),
    );
    return () => clearTimeout(timer);
  }, [s]);

  const routes = s?.kind === 'operator' ? OPERATOR_ROUTES : CUSTOMER_ROUTES;
  const found = s ? match(routes, path) : null;
  const home = s?.kind === 'operator' ? '/admin' : '/overview';
  useEffect(() => {
    if (s && !found) navigate(home, { replace: true });
  }, [s, found, home]);
  useEffect(() => {
    document.title = `${found ? found.route.title : 'Sign in'} · Screening dashboard`;
  }, [found]);

  if (!s) return <SignIn />;
  return (
    <Shell s={s} routes={routes} current={found?.route ?? null}>
      <Boundary key={path}>{found ? <LazyPage route={found.route} params={found.params} /> : null}</Boundary>
    </Shell>
  );
}
