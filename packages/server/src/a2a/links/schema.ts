import Type from 'typebox';
import { binaryBody } from '../../http/schema.ts';

const Region = Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('global')], { description: 'global: the {a2a_url_global} links' }));

export const LinksQuery = Type.Object({ request_key: Type.String(), region: Region });
export const QrQuery = Type.Object({
  request_key: Type.String(),
  format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('svg')])),
  region: Region,
});

/** The QR code of the universal link. */
export const QrImage = binaryBody(['image/png', 'image/svg+xml'], 'the QR code of the universal link');

export const LinksResponse = Type.Object({
  request_key: Type.String(),
  region: Type.String(),
  universal_link: Type.String(),
  ios_scheme_link: Type.String(),
  android_intent_link: Type.String(),
  qr_text: Type.String(),
  qr_png_url: Type.String(),
  qr_svg_url: Type.String(),
});
