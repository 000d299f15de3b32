import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticatePartner, requestPartner } from '../partner-auth/authenticate.ts';
import { invitePeople } from './commands.ts';
import { InviteAnswer, InviteBody } from './schema.ts';
import { described } from '../http/schema.ts';

/** `POST /v2/wallet/invite` (Family A): invites people who are not members yet (docs/partner-api.md). */
export const inviteRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v2/wallet/invite',
    { onRequest: authenticatePartner, schema: { summary: 'Invite people who are not members yet', body: InviteBody, response: { 200: described(InviteAnswer, 'How many invitations were sent') } } },
    async (request) => invitePeople(app.services, requestPartner(request), request.body.to_person),
  );
};
