// The layers, as rules `make lint` checks (dependency-cruiser): engine → loaders → src/core →
// domains → api → transports → service → entry points, each importing only from the layers
// before it, and no loop between files or folders. Type-only imports count as imports.
const DOMAINS = '(billing|audit|webhooks|pep|ipintel|lists|ens|store)';
const ABOVE_DOMAINS = '^src/(api|server|mcp|cli|wiring)/|^src/(service|main|cli)\\.ts$';
const TOOLING = '^(harness|bench|test|scripts)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycle',
      severity: 'error',
      comment: 'Modules import each other in a loop.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      scope: 'folder',
      comment: 'Folders import each other in a loop.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-stands-alone',
      severity: 'error',
      comment: 'engine/ knows nothing of the service, the loaders or the tooling.',
      from: { path: '^engine/' },
      to: { path: '^(src|loaders|harness|bench|test|scripts)/' },
    },
    {
      name: 'loaders-below-service',
      severity: 'error',
      comment: 'loaders/ know nothing of the service (their settings: LoaderSettings).',
      from: { path: '^loaders/' },
      to: { path: '^(src|harness|bench|test|scripts)/' },
    },
    {
      name: 'config-is-a-leaf',
      severity: 'error',
      comment: 'src/config.ts is read by every layer and reads none.',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^(src|loaders)/' },
    },
    {
      name: 'core-below-domains',
      severity: 'error',
      comment: 'src/core/ is the kernel beneath the domains and transports.',
      from: { path: '^src/core/' },
      to: { path: '^src/(?!core/)' },
    },
    {
      name: 'domains-below-api',
      severity: 'error',
      comment: 'A domain never imports the API, a transport or the wiring.',
      from: { path: `^src/${DOMAINS}/` },
      to: { path: ABOVE_DOMAINS },
    },
    {
      name: 'api-below-transports',
      severity: 'error',
      comment: 'Endpoint definitions are data; the transports serve them.',
      from: { path: '^src/api/' },
      to: { path: '^src/(server|mcp|cli|wiring)/|^src/(service|main|cli)\\.ts$' },
    },
    {
      name: 'transports-below-service',
      severity: 'error',
      comment: 'The transports are wired by src/service.ts (its steps: src/wiring/).',
      from: { path: '^src/(server|mcp)/' },
      to: { path: '^src/(cli|wiring)/|^src/(service|main|cli)\\.ts$' },
    },
    {
      name: 'service-below-entry-points',
      severity: 'error',
      from: { path: '^src/service\\.ts$|^src/wiring/' },
      to: { path: '^src/cli/|^src/(main|cli)\\.ts$' },
    },
    {
      name: 'product-without-tooling',
      severity: 'error',
      comment: 'The service, engine and loaders never import test or benchmark code.',
      from: { path: '^(src|engine|loaders)/' },
      to: { path: TOOLING },
    },
    {
      name: 'harness-below-tests',
      severity: 'error',
      comment: 'harness/ is shared by tests and benchmarks, and imports neither.',
      from: { path: '^harness/' },
      to: { path: '^(bench|test|scripts)/' },
    },
    { name: 'bench-without-tests', severity: 'error', from: { path: '^bench/' }, to: { path: '^(test|scripts)/' } },
    {
      name: 'product-without-dev-dependencies',
      severity: 'error',
      comment: 'Production code imports only production dependencies.',
      from: { path: '^(src|engine|loaders)/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
    { name: 'resolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
    {
      name: 'service-without-dashboard',
      severity: 'error',
      comment: 'The dashboard is a browser program that talks to the service over HTTP only.',
      from: { path: '^(src|engine|loaders)/', pathNot: '^src/dashboard/' },
      to: { path: '^src/dashboard/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // src/dashboard is a separate browser program (its own tsconfig, bundled by Vite, importing
    // only preact, uplot, openapi-fetch and the generated contract types); tsc checks it.
    exclude: { path: '^(dist|node_modules|data|\\.tmp)/|^src/dashboard/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.json'],
    },
  },
};
