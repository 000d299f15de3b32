import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { prepareRequest } from './commands.ts';
import { PrepareBody, PreparedResponse } from './schema.ts';

/** POST /v2/a2a/prepare */
export const a2aPrepareRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/prepare', { schema: { summary: 'B1 Prepare a request', body: PrepareBody, response: { 200: PreparedResponse } } }, async (request) =>
    prepareRequest(app.services, request.body),
  );
};
