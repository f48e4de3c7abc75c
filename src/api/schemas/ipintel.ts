import { isIP } from 'node:net';
import { z } from 'zod';

/** SPEC.md's VpnResponse and GeoResponse, and the `ip_address` parameter of `/vpn` and `/geo`. */

const ipAddress = z
  .string()
  .refine((s) => isIP(s) !== 0, 'value is not a valid IPv4 or IPv6 address')
  .meta({ description: 'An IPv4 or IPv6 address.', examples: ['8.8.8.8', '2001:4860:4860::8888'] });

export const IpPathInput = z.object({ ip_address: ipAddress }).strict();

export const IpQueryInput = z
  .object({
    ip_address: ipAddress
      .meta({
        description: "An IPv4 or IPv6 address; when omitted the calling client's IP is evaluated.",
        examples: ['8.8.8.8'],
      })
      .optional(),
  })
  .strict();

export const VpnResponse = z
  .object({
    ip: z.string().meta({ description: 'The evaluated address.' }),
    vpn: z.union([z.boolean(), z.literal('unknown')]).meta({
      description:
        'True when the address lies in a known VPN provider range or is a Tor exit node; `unknown` when no privacy data is loaded for its address family. Datacenter ranges are not counted as VPN.',
    }),
  })
  .strict()
  .meta({ id: 'VpnResponse' });

export const GeoResponse = z
  .object({
    ip: z.string(),
    city: z.string().nullable().optional(),
    region: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'First-level subdivision (state, province, oblast).' }),
    country: z.string().nullable().optional().meta({ description: 'ISO 3166-1 alpha-2 code.' }),
    sanctioned: z.boolean().nullable().optional().meta({
      description:
        'Flags a sanctioned country, or a sanctioned region of a country (e.g. Crimea), per the country designations; null when the country is unknown.',
    }),
    source_url: z.string().nullable().optional().meta({ description: 'The geolocation data provider.' }),
  })
  .strict()
  .meta({ id: 'GeoResponse' });
