import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key under which a client address is counted (rate limit, wrong-password back-off). IPv4 is
 * the address itself (also when written IPv4-mapped, `::ffff:1.2.3.4`); IPv6 is its /64 prefix,
 * since one subscriber usually holds a whole /64 and could otherwise rotate through it.
 *
 * @example
 * clientAddressKey('2001:db8:1:2:3:4:5:6'); // '2001:db8:1:2::/64'
 */
export function clientAddressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const groups = expandIPv6(ip.split('%')[0]!);
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as lower-case hex. */
function expandIPv6(ip: string): string[] {
  let text = ip.toLowerCase();
  const embedded = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (embedded) {
    const [a, b, c, d] = embedded.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, embedded.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right];
}
