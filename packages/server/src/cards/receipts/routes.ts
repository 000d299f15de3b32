import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Hex } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import { authenticatePartner } from '../../partner-auth/authenticate.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import { Errors } from '../../errors/codes.ts';

const ReceiptQuery = Type.Object({ tx_hash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }) }, { additionalProperties: true });
const ReceiptAnswer = Type.Object({ success: Type.Boolean() });

/** A20 `GET /v2/wallet/receipt?tx_hash=`: whether a mined transaction succeeded; 4700 while it has no receipt. */
export const receiptRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v2/wallet/receipt',
    { onRequest: authenticatePartner, schema: { querystring: ReceiptQuery, response: { 200: ReceiptAnswer } } },
    async (request) => ({ success: await receiptSuccess(app.services, request.query.tx_hash.toLowerCase() as Hex) }),
  );
};

/**
 * The outbox knows the transactions the service sent (and their receipts once mined); any other
 * hash is looked up on the main chain. No receipt yet, or no such transaction: 4700.
 */
export async function receiptSuccess(deps: { chains: ChainRegistry; outbox: TransactionOutbox }, hash: Hex): Promise<boolean> {
  const known = await deps.outbox.findByHash(hash);
  if (known) {
    if (known.status !== 'mined' || known.receiptStatus === null) throw new AppError(Errors.NoReceipt);
    return known.receiptStatus === 'success';
  }
  const receipt = await deps.chains
    .get('main')
    .client.getTransactionReceipt({ hash })
    .catch((error: Error) => {
      if (error.name === 'TransactionReceiptNotFoundError') return undefined;
      throw error;
    });
  if (!receipt) throw new AppError(Errors.NoReceipt);
  return receipt.status === 'success';
}
