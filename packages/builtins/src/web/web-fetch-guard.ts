import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { normalizeHost } from './web-fetch-host.js';

export { normalizeHost };

// The address guard of web_fetch: which hosts and addresses a fetch may connect to. The check runs
// on every address a name resolves to and on every redirect hop, and the connection is then made to
// exactly the checked addresses (web-fetch-request.ts passes them to the socket as its lookup), so
// a second DNS answer (rebinding) can never point the connection elsewhere.

/** Why an address is refused. */
export type AddressCategory =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unique-local'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'metadata'
  | 'translated';

/** The categories `allowPrivateNetwork` lets through (metadata addresses never). */
const PRIVATE_NETWORK: ReadonlySet<AddressCategory> = new Set([
  'loopback',
  'private',
  'link-local',
  'shared',
  'unique-local',
]);

/** Cloud metadata services (AWS, GCP, Azure, OpenStack, Oracle: 169.254.169.254; ECS; Alibaba; AWS IPv6). */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254',
  '169.254.169.253',
  '169.254.169.123',
  '169.254.170.2',
  '169.254.170.23',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
  'fd00:ec2::23',
]);

/** Names of metadata services, refused before any lookup. */
const METADATA_NAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** The guard's configuration (the host's `webFetch` settings). */
export interface AddressGuardOptions {
  /** Host names and IP literals fetched whatever they resolve to (lower case, no trailing dot). */
  readonly allowHosts: ReadonlySet<string>;
  /** Loopback, private, link-local, shared (CGNAT) and unique-local addresses are allowed; metadata addresses stay refused. */
  readonly allowPrivateNetwork: boolean;
}

/** A host the guard let through, with the addresses the connection must use. */
export interface CheckedHost {
  readonly host: string;
  readonly addresses: readonly { readonly address: string; readonly family: 4 | 6 }[];
  /** Set when the host was allowed by name (`allowHosts`) rather than by its addresses. */
  readonly allowedByName: boolean;
}

/** Why a host was refused or could not be resolved. */
export type HostRefusal =
  | { readonly kind: 'blocked'; readonly category: AddressCategory; readonly literal: boolean }
  | { readonly kind: 'unresolved'; readonly code: string };

type IpaddrModule = typeof import('ipaddr.js');
let ipaddr: Promise<IpaddrModule> | undefined;
let metadataV6: ReadonlySet<string> | undefined;

/** ipaddr.js: the classification tables of the special address ranges (loaded on the first fetch). */
function loadIpaddr(): Promise<IpaddrModule> {
  ipaddr ??= import('ipaddr.js').then((module) => (module as { default?: IpaddrModule }).default ?? module);
  return ipaddr;
}

function categoryOfV4(range: string): AddressCategory | undefined {
  switch (range) {
    case 'unicast':
      return undefined;
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link-local';
    case 'carrierGradeNat':
      return 'shared';
    case 'multicast':
      return 'multicast';
    case 'unspecified':
      return 'unspecified';
    case 'broadcast':
      return 'broadcast';
    default:
      return 'reserved';
  }
}

/**
 * The category that refuses an IP address, or `undefined` for a public unicast one. IPv6 forms
 * that carry an IPv4 address (mapped `::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::`,
 * 6to4 `2002::`) are judged by that address; the deprecated IPv4-compatible `::a.b.c.d`, Teredo
 * and local NAT64 (`64:ff9b:1::/48`) are refused outright.
 */
export async function addressCategory(address: string): Promise<AddressCategory | undefined> {
  const library = await loadIpaddr();
  const text = address.replace(/%.*$/, '');
  if (!library.isValid(text)) return 'reserved';
  const parsed = library.parse(text);
  if (parsed.kind() === 'ipv4') {
    const v4 = parsed as import('ipaddr.js').IPv4;
    if (METADATA_ADDRESSES.has(v4.toString())) return 'metadata';
    return categoryOfV4(v4.range());
  }
  const v6 = parsed as import('ipaddr.js').IPv6;
  metadataV6 ??= new Set(
    [...METADATA_ADDRESSES]
      .filter((item) => item.includes(':'))
      .map((item) => library.parse(item).toNormalizedString()),
  );
  if (metadataV6.has(v6.toNormalizedString())) return 'metadata';
  const bytes = v6.toByteArray();
  const embedded = (offset: number): Promise<AddressCategory | undefined> =>
    addressCategory(bytes.slice(offset, offset + 4).join('.'));
  const range = v6.range();
  switch (range) {
    case 'unicast':
      // ::/96 other than :: and ::1 is the deprecated IPv4-compatible form: no public server lives there.
      if (bytes.slice(0, 12).every((byte) => byte === 0)) return 'reserved';
      return undefined;
    case 'ipv4Mapped':
    case 'rfc6145':
      return embedded(12);
    case 'rfc6052':
      // The well-known NAT64 prefix carries the address in its last 32 bits; the local-use one is a private network.
      return bytes[4] === 0 && bytes[5] === 0 ? embedded(12) : 'translated';
    case '6to4':
      return embedded(2);
    case 'teredo':
      return 'translated';
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link-local';
    case 'uniqueLocal':
      return 'unique-local';
    case 'multicast':
      return 'multicast';
    case 'unspecified':
      return 'unspecified';
    default:
      return 'reserved';
  }
}

/** Whether the guard's options let an address of this category through. */
function allowedCategory(category: AddressCategory | undefined, options: AddressGuardOptions): boolean {
  return category === undefined || (options.allowPrivateNetwork && PRIVATE_NETWORK.has(category));
}

/**
 * Checks a URL's host and resolves it: an IP literal is checked as it is; a name is refused when it
 * names a metadata service, and otherwise resolved (`dns.lookup`, every address) and refused when
 * any address is refused. A host in `allowHosts` passes whatever it resolves to. Never throws.
 */
export async function checkHost(
  hostname: string,
  options: AddressGuardOptions,
): Promise<{ ok: true; value: CheckedHost } | { ok: false; refusal: HostRefusal }> {
  const host = normalizeHost(hostname);
  const allowedByName = options.allowHosts.has(host);
  const family = isIP(host);
  if (family !== 0) {
    const category = await addressCategory(host);
    if (!allowedByName && !allowedCategory(category, options))
      return {
        ok: false,
        refusal: { kind: 'blocked', category: category as AddressCategory, literal: true },
      };
    return {
      ok: true,
      value: { host, addresses: [{ address: host, family: family as 4 | 6 }], allowedByName },
    };
  }
  if (!allowedByName && METADATA_NAMES.has(host))
    return { ok: false, refusal: { kind: 'blocked', category: 'metadata', literal: false } };
  let answers: { address: string; family: number }[];
  try {
    answers = await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    return {
      ok: false,
      refusal: { kind: 'unresolved', code: (error as NodeJS.ErrnoException).code ?? 'ENOTFOUND' },
    };
  }
  if (answers.length === 0) return { ok: false, refusal: { kind: 'unresolved', code: 'ENODATA' } };
  const addresses: { address: string; family: 4 | 6 }[] = [];
  for (const answer of answers) {
    const category = await addressCategory(answer.address);
    if (!allowedByName && !allowedCategory(category, options))
      return {
        ok: false,
        refusal: { kind: 'blocked', category: category as AddressCategory, literal: false },
      };
    addresses.push({ address: answer.address, family: answer.family === 6 ? 6 : 4 });
  }
  return { ok: true, value: { host, addresses, allowedByName } };
}
