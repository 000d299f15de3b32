import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Hex } from 'viem';
import { authenticatePartner } from '../../partner-auth/authenticate.ts';
import { receiptSuccess } from './commands.ts';
import { described } from '../../http/schema.ts';

const ReceiptQuery = Type.Object({ tx_hash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }) }, { additionalProperties: true });
const ReceiptAnswer = Type.Object({ success: Type.Boolean() });

/** A20 `GET /v2/wallet/receipt?tx_hash=`: whether a mined transaction succeeded; 4700 while it has no receipt. */
export const receiptRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v2/wallet/receipt',
    { onRequest: authenticatePartner, schema: { summary: 'A20 Whether a transaction succeeded', querystring: ReceiptQuery, response: { 200: described(ReceiptAnswer, 'Whether the transaction succeeded on the chain') } } },
    async (request) => ({ success: await receiptSuccess(app.services, request.query.tx_hash.toLowerCase() as Hex) }),
  );
};
