import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { prepareRequest } from './commands.ts';
import { PrepareBody, PreparedResponse } from './schema.ts';
import { prepareSchemaError, prepareValidatorCompiler, refusalAboutField } from './validation.ts';
import { described } from '../../http/schema.ts';
import { isRequestType } from '../requests/actions.ts';

/** Told how each B1 call ended (metrics). */
export interface PrepareListener {
  prepareAnswered(type: string, outcome: 'prepared' | 'refused'): void;
}

/** POST /v2/a2a/prepare: a body the schema refuses answers the code of its first wrong field; every refusal names its field. */
export const a2aPrepareRoutes: FastifyPluginAsync<{ listener?: PrepareListener }> = async (plugin, { listener }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  if (listener) {
    app.addHook('onResponse', async (request, reply) => {
      const type = (request.body as { type?: unknown } | undefined)?.type;
      listener.prepareAnswered(typeof type === 'string' && isRequestType(type) ? type : 'unknown', reply.statusCode === 200 ? 'prepared' : 'refused');
    });
  }
  app.post(
    '/prepare',
    {
      schema: { summary: 'B1 Prepare a request', body: PrepareBody, response: { 200: described(PreparedResponse, 'The request key and its expiry') } },
      validatorCompiler: prepareValidatorCompiler,
      schemaErrorFormatter: prepareSchemaError,
    },
    async (request) => {
      try {
        return await prepareRequest(app.services, request.body);
      } catch (error) {
        throw refusalAboutField(error, request.body);
      }
    },
  );
};
