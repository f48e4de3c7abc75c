/**
 * The table of screening kinds: each kind declared once, with the engine's rule for it
 * (validator, normalizer, probes: engine/kinds.ts) and the names the API publishes for it. The
 * screening routes, the batch item types, the monitored entity types, the MCP tools and the
 * audit trail's re-screening all derive from it; the service takes another table (`with`) to
 * screen a kind beyond these.
 */
import { SCREEN_KINDS, type KindRule } from '../../engine/kinds.js';

export interface PublishedKind {
  /**
   * The engine's rule. Its name is also the kind's route segment (`/screen/<name>`), endpoint id
   * (`screen.<name>`) and batch item type.
   */
  readonly rule: KindRule;
  /** The screening route's one parameter: in the path (`/screen/<name>/{name}`) or the query. */
  readonly param: { readonly name: string; readonly in: 'path' | 'query'; readonly description: string };
  readonly summary: string;
  readonly description: string;
  /** The `entity_type` of a monitored value of this kind (webhooks). */
  readonly monitor: string;
  /** The MCP tool screening it. */
  readonly tool: string;
  /** A dotted value is an ENS name: its route resolves it first, a batch refuses it, monitoring re-resolves it. */
  readonly ens: boolean;
}

/** The kinds of the service, in the order the API lists them; their names are published (OpenAPI, MCP, events). */
const PUBLISHED: readonly PublishedKind[] = [
  {
    rule: SCREEN_KINDS.crypto,
    param: {
      name: 'address',
      in: 'path',
      description: 'An address on any chain, or an ENS name (anything with a dot).',
    },
    summary: 'Screen a crypto address (any chain) or an ENS name',
    description:
      'Checksum and case variants of an address are the same address. A dotted name is resolved through ENS and `value` is the resolved address; a name that does not resolve is a 422, an unreachable Ethereum RPC a 503. ' +
      'With `as_of`, an ENS name is resolved as of now (ENS history is not kept) and the address is screened against the lists as they stood then.',
    monitor: 'onchain_address',
    tool: 'screen_crypto',
    ens: true,
  },
  {
    rule: SCREEN_KINDS.email,
    param: { name: 'email', in: 'path', description: 'An e-mail address.' },
    summary: 'Screen an e-mail address',
    description:
      'Matches listed addresses (case-insensitive, IDNA domains) and listed e-mail domains such as disposable providers (`domain`).',
    monitor: 'email',
    tool: 'screen_email',
    ens: false,
  },
  {
    rule: SCREEN_KINDS.website,
    param: { name: 'address', in: 'query', description: 'Website address (URL) or web domain.' },
    summary: 'Screen a website address or web domain',
    description: 'A full URL or a bare domain. A listed domain also matches its subdomains (`subdomain`).',
    monitor: 'website',
    tool: 'screen_website',
    ens: false,
  },
  {
    rule: SCREEN_KINDS.id,
    param: { name: 'government_id', in: 'path', description: 'The identifier as written on the document.' },
    summary: 'Screen a government-issued identifier (fuzzy)',
    description:
      'Passport, national ID, tax or registration numbers. Punctuation and spaces are ignored (`exact`); near misses such as one wrong character match as `fuzzy`.',
    monitor: 'government_id',
    tool: 'screen_government_id',
    ens: false,
  },
  {
    rule: SCREEN_KINDS.country,
    param: { name: 'country', in: 'path', description: 'Country or region.' },
    summary: "Screen a country or region's sanctions designations",
    description:
      'ISO 3166 alpha-2, alpha-3 or numeric code, English name or common alias, or a region (e.g. Crimea, UA-43). A country containing a designated region matches it as `region`.',
    monitor: 'country',
    tool: 'screen_country',
    ens: false,
  },
];

/** The endpoint id of a kind's screening route. */
export const endpointIdOf = (kind: PublishedKind): string => `screen.${kind.rule.name}`;

/** A table of kinds: unique names, monitored types and tools, looked up by each. */
export class ScreeningKinds {
  private readonly byName = new Map<string, PublishedKind>();
  private readonly byMonitor = new Map<string, PublishedKind>();

  constructor(readonly all: readonly PublishedKind[]) {
    const tools = new Set<string>();
    for (const kind of all) {
      // `name` is a batch item type of its own.
      if (kind.rule.name === 'name' || this.byName.has(kind.rule.name)) throw new Error(`kind ${kind.rule.name} twice`);
      if (this.byMonitor.has(kind.monitor)) throw new Error(`monitored type ${kind.monitor} twice`);
      if (tools.has(kind.tool)) throw new Error(`tool ${kind.tool} twice`);
      this.byName.set(kind.rule.name, kind);
      this.byMonitor.set(kind.monitor, kind);
      tools.add(kind.tool);
    }
  }

  /** This table and more kinds after its own. */
  with(...more: PublishedKind[]): ScreeningKinds {
    return new ScreeningKinds([...this.all, ...more]);
  }

  /** The kinds' names (batch item types), in order. */
  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** The monitored entity types, in order. */
  get monitorTypes(): string[] {
    return [...this.byMonitor.keys()];
  }

  named(name: string): PublishedKind | undefined {
    return this.byName.get(name);
  }

  monitored(type: string): PublishedKind | undefined {
    return this.byMonitor.get(type);
  }

  /** The kind a screening endpoint screens. */
  ofEndpoint(id: string): PublishedKind | undefined {
    return id.startsWith('screen.') ? this.byName.get(id.slice('screen.'.length)) : undefined;
  }
}

export const KINDS = new ScreeningKinds(PUBLISHED);
