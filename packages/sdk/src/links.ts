import type { Environment, LinkSettings, Region, RequestLinks } from './types.ts';

/** The service's default app settings per region (its `a2a.links` and `a2a.globalLinks`). */
const DEFAULT_APPS: Record<Region, Required<Omit<LinkSettings, 'webUrl'>>> = {
  default: { appScheme: 'walletapp', appHost: 'wallet', appPackage: 'com.example.wallet' },
  global: { appScheme: 'walletapp-global', appHost: 'wallet', appPackage: 'com.example.wallet.global' },
};

/** The QR images of a request's link, served by the service at `baseUrl`. */
export function qrUrls(baseUrl: string, requestKey: string, region: Region): Pick<RequestLinks, 'qr_png_url' | 'qr_svg_url'> {
  const query = `request_key=${encodeURIComponent(requestKey)}${region === 'global' ? '&region=global' : ''}`;
  return { qr_png_url: `${baseUrl}/v2/a2a/qr?${query}&format=png`, qr_svg_url: `${baseUrl}/v2/a2a/qr?${query}&format=svg` };
}

/**
 * Every link form of the specification's table, built as the service builds them: the inner
 * universal link stands after `url=` as written, not percent-encoded.
 */
export function buildLinks(settings: LinkSettings, region: Region, requestKey: string): Omit<RequestLinks, 'qr_png_url' | 'qr_svg_url'> {
  const { appScheme, appHost, appPackage } = { ...DEFAULT_APPS[region], ...definedOnly(settings) };
  const universal = `${settings.webUrl.replace(/\/+$/, '')}/?target=/a2a?request_key=${requestKey}`;
  return {
    request_key: requestKey,
    url: universal,
    universal_link: universal,
    ios_scheme_link: `${appScheme}://${appHost}/open?url=${universal}`,
    android_intent_link: `intent://${appHost}/open?url=${universal}#Intent;scheme=${appScheme};package=${appPackage};end`,
  };
}

function definedOnly(settings: LinkSettings): Partial<LinkSettings> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined && value !== ''));
}

/** What a browser's `navigator` tells about the device. */
export interface NavigatorInfo {
  userAgent?: string;
  maxTouchPoints?: number;
}

/** iOS (iPhone, iPod, iPad, and iPadOS that reports a Mac with touch), Android, or other. */
export function detectEnvironment(navigatorInfo: NavigatorInfo | undefined): Environment {
  const agent = navigatorInfo?.userAgent ?? '';
  if (/android/i.test(agent)) return 'android';
  if (/iphone|ipad|ipod/i.test(agent)) return 'ios';
  if (/macintosh/i.test(agent) && (navigatorInfo?.maxTouchPoints ?? 0) > 1) return 'ios';
  return 'other';
}
