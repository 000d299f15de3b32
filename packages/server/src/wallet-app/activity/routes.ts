import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateRequest } from '../../member-session/commands.ts';
import { listActivity } from './commands.ts';
import { ActivityAnswer, ActivityQuery } from './schema.ts';
import { described } from '../../http/schema.ts';

/** `GET /v2/wallet-app/activity`: the member's requests, cards, coins, tokens, test coins and claims, newest first, a page at a time. */
export const activityRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.get(
    '/v2/wallet-app/activity',
    { schema: { summary: "The member's activity, newest first", querystring: ActivityQuery, response: { 200: described(ActivityAnswer, 'A page of activity and the cursor of the next') } } },
    async (request) => {
      const { member } = await authenticateRequest(services, request);
      return listActivity(services, member, { cursor: request.query.cursor, limit: request.query.limit });
    },
  );
};
