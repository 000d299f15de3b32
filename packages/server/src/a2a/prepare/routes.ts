import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { prepareRequest } from './commands.ts';
import { PrepareBody, PreparedResponse } from './schema.ts';
import { prepareSchemaError, prepareValidatorCompiler } from './validation.ts';

/** POST /v2/a2a/prepare: a body the schema refuses answers the code of its first wrong field. */
export const a2aPrepareRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/prepare',
    {
      schema: { summary: 'B1 Prepare a request', body: PrepareBody, response: { 200: PreparedResponse } },
      validatorCompiler: prepareValidatorCompiler,
      schemaErrorFormatter: prepareSchemaError,
    },
    async (request) => prepareRequest(app.services, request.body),
  );
};
