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

/**
 * A session's browser and system in words ("Chrome on Android") from its User-Agent. Tokens are
 * tried from the most specific: Edge, Opera and Samsung Internet also say Chrome and Safari, and
 * Chrome also says Safari.
 */
export function browserAndSystem(userAgent: string | null): string {
  if (!userAgent) return 'An unknown browser';
  const browser = firstMatch(userAgent, [
    [/\bEdgA?\//, 'Edge'],
    [/\b(OPR|Opera)\//, 'Opera'],
    [/\bSamsungBrowser\//, 'Samsung Internet'],
    [/\b(Firefox|FxiOS)\//, 'Firefox'],
    [/\bHeadlessChrome\//, 'Headless Chrome'],
    [/\b(Chrome|CriOS|Chromium)\//, 'Chrome'],
    [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  ]);
  const system = firstMatch(userAgent, [
    [/\bAndroid\b/, 'Android'],
    [/\b(iPhone|iPod)\b/, 'iOS'],
    [/\biPad\b/, 'iPadOS'],
    [/\bCrOS\b/, 'ChromeOS'],
    [/\bWindows\b/, 'Windows'],
    [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
    [/\bLinux\b/, 'Linux'],
  ]);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `A browser on ${system}` : 'An unknown browser');
}

function firstMatch(text: string, names: Array<[RegExp, string]>): string | null {
  return names.find(([pattern]) => pattern.test(text))?.[1] ?? null;
}
