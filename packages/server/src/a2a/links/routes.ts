import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { buildRequestLinks, liveRequestKey, qrPng, qrSvg } from './commands.ts';
import { LinksQuery, LinksResponse, QrImage, QrQuery } from './schema.ts';
import { described } from '../../http/schema.ts';

/** GET /v2/a2a/links and GET /v2/a2a/qr: the B2 links of a live request key. */
export const a2aLinksRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/links', { schema: { summary: 'B2 Links of a request key (universal, scheme and intent links, QR text)', querystring: LinksQuery, response: { 200: described(LinksResponse, 'The links that open the request in the wallet app') } } }, async (request) => {
    const key = await liveRequestKey(app.services, request.query.request_key);
    return buildRequestLinks(app.services.config, key, request.query.region);
  });

  app.get('/qr', { schema: { summary: 'B2 QR code of a request key (PNG or SVG)', querystring: QrQuery, response: { 200: QrImage } } }, async (request, reply) => {
    const key = await liveRequestKey(app.services, request.query.request_key);
    const links = buildRequestLinks(app.services.config, key, request.query.region);
    reply.header('cache-control', 'no-store');
    if (request.query.format === 'svg') return reply.type('image/svg+xml').send(await qrSvg(links.qr_text));
    return reply.type('image/png').send(await qrPng(links.qr_text));
  });
};
