import type { FastifyPluginAsync } from 'fastify';
import { mintRoutes } from './mint/routes.ts';
import { receiptRoutes } from './receipts/routes.ts';
import { cardTransferRoutes } from './transfer/routes.ts';
import { cardsToPeopleRoutes } from './to-people/routes.ts';

/** Family A part 2: minting (A7-A9), sending and deleting (A10, A11, A14) and receipts (A20). */
export const partnerCardRoutes: FastifyPluginAsync = async (app) => {
  await app.register(mintRoutes);
  await app.register(cardTransferRoutes);
  await app.register(cardsToPeopleRoutes);
  await app.register(receiptRoutes);
};
