import QRCode from 'qrcode';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { Store } from '../../store/database.ts';
import { readResult } from '../requests/commands.ts';
import { RequestKeyError } from '../requests/errors.ts';

/** `default` uses `a2a.links`; `global` the regional `{a2a_url_global}` configuration `a2a.globalLinks`. */
export type LinkRegion = 'default' | 'global';

/** Every link shape of the B2 table for one request key. */
export interface RequestLinks {
  request_key: string;
  region: LinkRegion;
  /** iOS and Android universal link, and what the QR code encodes. */
  universal_link: string;
  /** Older iOS form: `{app_scheme}://{app_host}/open?url=<universal link>`. */
  ios_scheme_link: string;
  /** Older Android form: `intent://{app_host}/open?url=<universal link>#Intent;scheme=…;package=…;end`. */
  android_intent_link: string;
  /** Text of the QR code for PCs and other devices (the universal link). */
  qr_text: string;
  /** This service's QR images of it. */
  qr_png_url: string;
  qr_svg_url: string;
}

/**
 * Builds every link shape for a request key. The inner universal link is placed after `url=` as
 * the table writes it, not percent-encoded: the wallet app takes everything after `url=`.
 *
 * @example
 * buildRequestLinks(config, key).universal_link // 'https://wallet.example.com/?target=/a2a?request_key=<key>'
 */
export function buildRequestLinks(config: Readonly<Config>, requestKey: string, region: LinkRegion = 'default'): RequestLinks {
  const settings = region === 'global' ? config.a2a.globalLinks : config.a2a.links;
  const webUrl = (settings.webUrl ?? config.publicUrl).replace(/\/+$/, '');
  const universal = `${webUrl}/?target=/a2a?request_key=${requestKey}`;
  const publicUrl = config.publicUrl.replace(/\/+$/, '');
  const regionQuery = region === 'global' ? '&region=global' : '';
  return {
    request_key: requestKey,
    region,
    universal_link: universal,
    ios_scheme_link: `${settings.appScheme}://${settings.appHost}/open?url=${universal}`,
    android_intent_link: `intent://${settings.appHost}/open?url=${universal}#Intent;scheme=${settings.appScheme};package=${settings.appPackage};end`,
    qr_text: universal,
    qr_png_url: `${publicUrl}/v2/a2a/qr?request_key=${requestKey}&format=png${regionQuery}`,
    qr_svg_url: `${publicUrl}/v2/a2a/qr?request_key=${requestKey}&format=svg${regionQuery}`,
  };
}

/** The stored form of a request key. Links are only made for keys that exist (6000) and have not expired unfinished (6001). */
export async function liveRequestKey(deps: { config: Readonly<Config>; store: Store }, requestKey: string): Promise<string> {
  const answer = await readResult(deps, requestKey);
  if (answer.marker === null) throw new AppError(Errors.RequestKeyUnknown);
  const body = answer.body as { request_key: string; expiration_time: number; error?: { code?: number } };
  if (body.error?.code === Errors.RequestKeyExpired) throw new RequestKeyError(Errors.RequestKeyExpired, body.request_key, body.expiration_time);
  return body.request_key;
}

/** The QR code of a link as PNG bytes. */
export function qrPng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 });
}

/** The QR code of a link as an SVG document. */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
