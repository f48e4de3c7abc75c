import type { ComponentType } from 'preact';

/** A page module: its default export renders the page, with the path's parameters. */
export type PageModule = { default: ComponentType<{ params: Record<string, string> }> };

export interface Route {
  /** Path below /dashboard; `:name` segments are parameters. */
  path: string;
  title: string;
  /** Shown in the navigation. */
  nav: boolean;
  load: () => Promise<PageModule>;
}

/**
 * The customer's and the operator's pages. Sign-in and the overview are in the first bundle
 * (see the size budget in scripts/dashboard-size.mjs); every other page loads on first visit.
 */
export const CUSTOMER_ROUTES: Route[] = [
  { path: '/overview', title: 'Overview', nav: true, load: () => import('../pages/overview') },
  { path: '/screen', title: 'Screen', nav: true, load: () => import('../pages/screen') },
  { path: '/alerts', title: 'Review queue', nav: true, load: () => import('../pages/alerts') },
  { path: '/alerts/:id', title: 'Alert', nav: false, load: () => import('../pages/alert') },
  { path: '/subjects', title: 'Subjects', nav: true, load: () => import('../pages/subjects') },
  { path: '/subjects/:id', title: 'Subject', nav: false, load: () => import('../pages/subject') },
  { path: '/audit', title: 'Audit trail', nav: true, load: () => import('../pages/audit') },
  { path: '/usage', title: 'Usage', nav: true, load: () => import('../pages/usage') },
  { path: '/tokens', title: 'API tokens', nav: true, load: () => import('../pages/tokens') },
  { path: '/webhooks', title: 'Webhooks', nav: true, load: () => import('../pages/webhooks') },
  { path: '/lists', title: 'Lists', nav: true, load: () => import('../pages/lists') },
  { path: '/private-lists', title: 'Private lists', nav: true, load: () => import('../pages/private-lists') },
  { path: '/billing', title: 'Billing', nav: true, load: () => import('../pages/billing') },
];

export const OPERATOR_ROUTES: Route[] = [
  { path: '/admin', title: 'Operator overview', nav: true, load: () => import('../pages/admin/overview') },
  { path: '/admin/customers', title: 'Customers', nav: true, load: () => import('../pages/admin/customers') },
  { path: '/admin/customers/:id', title: 'Customer', nav: false, load: () => import('../pages/admin/customer') },
  { path: '/admin/plans', title: 'Plans', nav: true, load: () => import('../pages/admin/plans') },
  { path: '/admin/lists', title: 'List status', nav: true, load: () => import('../pages/admin/lists') },
  { path: '/admin/health', title: 'Service health', nav: true, load: () => import('../pages/admin/health') },
];

/** The route matching `path`, with its parameters. */
export function match(routes: Route[], path: string): { route: Route; params: Record<string, string> } | null {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const want = route.path.split('/').filter(Boolean);
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (
      want.every((w, i) =>
        w.startsWith(':') ? ((params[w.slice(1)] = decodeURIComponent(parts[i])), true) : w === parts[i],
      )
    )
      return { route, params };
  }
  return null;
}
