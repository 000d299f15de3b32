import swaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';

/**
 * `GET /openapi.json`, `GET /openapi.yaml` and the docs page at `/docs` (Swagger UI, its files
 * served from the package: no request leaves the machine, and no validator badge is fetched).
 * Hidden from the document itself.
 */
export const openApiRoutes: FastifyPluginAsync = async (app) => {
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())));
  app.get('/openapi.yaml', { schema: { hide: true } }, async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true })));
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { validatorUrl: null, tryItOutEnabled: true, deepLinking: true, docExpansion: 'list' },
  });
};
