import { endpoint, type AnyEndpoint } from '../../core/endpoint.js';
import { GeoResponse, IpPathInput, IpQueryInput, VpnResponse } from '../schemas/ipintel.js';
import type { IpIntel } from '../../ipintel/index.js';

const TAGS = ['ip-intelligence'];

const VPN_EXAMPLE = { ip: '8.8.8.8', vpn: false };
const GEO_EXAMPLE = {
  ip: '8.8.8.8',
  city: 'Mountain View',
  region: 'California',
  country: 'US',
  sanctioned: false,
  source_url: 'https://db-ip.com',
};

const VPN_DESCRIPTION =
  'VPN detection from lists of VPN provider ranges and Tor exit nodes, refreshed daily. `vpn` is `unknown` when no list is loaded for the address family.';
const GEO_DESCRIPTION =
  'City-level geolocation (IP to City Lite by DB-IP, CC-BY-4.0) with a flag for sanctioned countries and regions from the country designations.';

/** `/vpn`, `/vpn/{ip_address}`, `/geo`, `/geo/{ip_address}`; without `ip_address` the client's IP. */
export function ipIntelEndpoints(deps: { ipintel: IpIntel }): AnyEndpoint[] {
  const { ipintel } = deps;
  return [
    endpoint({
      id: 'ip.vpn',
      method: 'GET',
      path: '/vpn/{ip_address}',
      tags: TAGS,
      summary: 'VPN detection for an IP address',
      description: VPN_DESCRIPTION,
      access: 'metered',
      input: IpPathInput,
      output: VpnResponse,
      example: VPN_EXAMPLE,
      handler: ({ ip_address }) => ipintel.vpn(ip_address),
    }),
    endpoint({
      id: 'ip.vpnClient',
      method: 'GET',
      path: '/vpn',
      tags: TAGS,
      summary: "VPN detection for the given or the calling client's IP address",
      description: VPN_DESCRIPTION,
      access: 'metered',
      input: IpQueryInput,
      output: VpnResponse,
      example: VPN_EXAMPLE,
      handler: ({ ip_address }, ctx) => ipintel.vpn(ip_address ?? ctx.meta.clientIp),
    }),
    endpoint({
      id: 'ip.geo',
      method: 'GET',
      path: '/geo/{ip_address}',
      tags: TAGS,
      summary: 'Geolocation of an IP address',
      description: GEO_DESCRIPTION,
      access: 'metered',
      input: IpPathInput,
      output: GeoResponse,
      example: GEO_EXAMPLE,
      handler: ({ ip_address }) => ipintel.geo(ip_address),
    }),
    endpoint({
      id: 'ip.geoClient',
      method: 'GET',
      path: '/geo',
      tags: TAGS,
      summary: "Geolocation of the given or the calling client's IP address",
      description: GEO_DESCRIPTION,
      access: 'metered',
      input: IpQueryInput,
      output: GeoResponse,
      example: GEO_EXAMPLE,
      handler: ({ ip_address }, ctx) => ipintel.geo(ip_address ?? ctx.meta.clientIp),
    }),
  ];
}
