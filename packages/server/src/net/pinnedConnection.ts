import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** DNS resolution of a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Why a URL's host is not connected to. */
export type HostRefusal = 'private_literal' | 'unresolvable' | 'private_name';

/** The system resolver, every address of the name in the order it gives them. */
export async function resolveAllAddresses(hostname: string): Promise<ResolvedAddress[]> {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/**
 * Resolves the URL's host once and returns its addresses when every one of them is allowed; otherwise throws what
 * `refuse` makes of the reason. One address not allowed refuses the name: picking a good one would let a name that
 * mixes internal and public records reach inside. A request made through `pinnedAgent` with these addresses
 * connects only to them, so a second DNS answer (rebinding) is never used.
 */
export async function allowedAddresses(
  url: URL,
  policy: { isAllowed: (address: string) => boolean; lookup?: HostResolver },
  refuse: (reason: HostRefusal) => Error,
): Promise<ResolvedAddress[]> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  if (literal !== 0) {
    if (!policy.isAllowed(host)) throw refuse('private_literal');
    return [{ address: host, family: literal === 6 ? 6 : 4 }];
  }
  let resolved: ResolvedAddress[];
  try {
    resolved = await (policy.lookup ?? resolveAllAddresses)(host);
  } catch {
    throw refuse('unresolvable');
  }
  if (resolved.length === 0) throw refuse('unresolvable');
  if (resolved.some(({ address }) => isIP(address) === 0 || !policy.isAllowed(address))) throw refuse('private_name');
  return resolved.map(({ address }) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
}

/** A socket lookup that only ever answers with the addresses already checked. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const [first] = addresses;
    if (options.all) callback(null, [...addresses]);
    else if (first) callback(null, first.address, first.family);
  };
}

/** An undici dispatcher of one connection that reaches only `addresses` (from `allowedAddresses`); destroy it after. */
export function pinnedAgent(
  addresses: readonly ResolvedAddress[],
  limits: { connectTimeoutMs: number; headersTimeoutMs: number; bodyTimeoutMs: number; ca?: string[] | undefined },
): Agent {
  return new Agent({
    connect: {
      timeout: limits.connectTimeoutMs,
      lookup: pinnedLookup(addresses),
      ...(limits.ca ? { ca: limits.ca } : {}),
    },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    connections: 1,
  });
}
