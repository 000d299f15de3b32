import { formatUnits, getAddress, isAddress } from 'viem';

/** Wei (decimal string) as coins, without trailing zeros. */
export function coins(wei: string): string {
  return formatUnits(BigInt(wei), 18);
}

/**
 * An exact decimal amount rounded for people: 4 decimals from 1 up (8.499798542 → 8.4998), 4
 * significant digits below 1 (0.000123456 → 0.0001235), half up, without trailing zeros; "< 0.00000001"
 * for dust. The exact amount stays available beside it (a title or a toggle).
 */
export function forPeople(exact: string): string {
  const [whole = '0', fraction = ''] = exact.split('.');
  if (!fraction) return whole;
  let digits: number;
  if (/[1-9]/.test(whole)) digits = 4;
  else {
    const leading = fraction.search(/[1-9]/);
    if (leading < 0) return whole;
    if (leading >= 8) return '< 0.00000001';
    digits = leading + 4;
  }
  if (fraction.length <= digits) return trimZeros(`${whole}.${fraction}`);
  const scaled = BigInt(whole + fraction.slice(0, digits)) + (Number(fraction[digits]) >= 5 ? 1n : 0n);
  const text = scaled.toString().padStart(digits + 1, '0');
  return trimZeros(`${text.slice(0, -digits)}.${text.slice(-digits)}`);
}

function trimZeros(amount: string): string {
  return amount.includes('.') ? amount.replace(/\.?0+$/, '') : amount;
}

/** Smallest units as an exact decimal amount. */
export function fromUnits(units: string, decimals: number): string {
  return formatUnits(BigInt(units), decimals);
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
