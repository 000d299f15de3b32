import { formatUnits, getAddress, isAddress } from 'viem';

/** Wei (decimal string) as coins, without trailing zeros. */
export function coins(wei: string): string {
  return formatUnits(BigInt(wei), 18);
}

/** An address in its checksummed form when it is one, else as given. */
export function address(value: string): string {
  return isAddress(value, { strict: false }) ? getAddress(value) : value;
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Epoch seconds as a local date and time. */
export function dateTime(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A link the app may offer: http(s) or an app's own scheme, never one that runs script or
 * carries a document in the link itself.
 */
export function safeLink(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const protocol = new URL(url).protocol;
    return ['javascript:', 'data:', 'vbscript:', 'blob:', 'file:'].includes(protocol) ? null : url;
  } catch {
    return null;
  }
}
