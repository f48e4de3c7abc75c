import type { Engine } from '../../engine/engine.js';
import type { ScreeningDeps } from '../api/endpoints/screen.js';
import { createIpIntel, type IpIntel } from '../ipintel/index.js';
import type { ListCatalog } from '../lists/catalog.js';
import { createPepProvider, type PepProvider } from '../pep/index.js';
import type { WiringContext } from './context.js';
import type { Lists } from './lists.js';
import type { ReviewView } from '../alerts/review-view.js';

export interface Providers {
  screening: ScreeningDeps;
  pep: PepProvider;
  ipintel: IpIntel;
}

/** What the screening endpoints answer from: the engine and catalog, PEP data and IP intelligence. */
export async function openProviders(
  { config, log, kinds }: WiringContext,
  lists: Lists,
  reviews: ReviewView,
): Promise<Providers> {
  const { engine, catalog, ens } = lists;
  const screening: ScreeningDeps = { engine, catalog, ens, kinds, reviews };
  const pep = await createPepProvider({ config, log: log.child({ component: 'pep' }) });
  const ipintel = await createIpIntel({
    config,
    log: log.child({ component: 'ipintel' }),
    isSanctionedPlace: sanctionedPlace(engine, catalog),
  });
  return { screening, pep, ipintel };
}

/**
 * Whether a place lies under a country designation: the country itself is designated, or its
 * ISO 3166-2 region is (Crimea, Sevastopol, the so-called DNR and LNR). Null for an unknown country.
 */
function sanctionedPlace(
  engine: Engine,
  catalog: ListCatalog,
): (country: string, region: string | null) => boolean | null {
  const lists = catalog.enabledSlugs.filter((s) => catalog.get(s)?.kind === 'country_designations');
  const designated = (value: string) =>
    (engine.screenExact({ kind: 'country', value, lists }) ?? []).some((h) => h.match === 'exact');
  return (country, region) => {
    if (!country) return null;
    return designated(country) || (region !== null && designated(region));
  };
}
