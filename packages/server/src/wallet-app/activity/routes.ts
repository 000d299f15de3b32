import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateRequest } from '../../member-session/commands.ts';
import { listActivity } from './commands.ts';
import { ActivityAnswer } from './schema.ts';
import { described } from '../../http/schema.ts';

/** `GET /v2/wallet-app/activity`: the member's recent App2App requests and card transfers. */
export const activityRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.get('/v2/wallet-app/activity', { schema: { summary: "The member's recent requests and card transfers", response: { 200: described(ActivityAnswer, 'The latest App2App requests and card transfers') } } }, async (request) => {
    const { member } = await authenticateRequest(services, request);
    return listActivity(services, member);
  });
};
