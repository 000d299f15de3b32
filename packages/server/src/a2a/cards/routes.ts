import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { queryCards } from './commands.ts';
import { IndexedCardOwnershipReader } from './indexed-ownership.ts';
import { ChainCardOwnershipReader, type CardOwnershipReader } from './ownership.ts';
import { CardsQuery, CardsResponse } from './schema.ts';
import { described } from '../../http/schema.ts';

export interface A2aCardsRoutesOptions {
  /** Where B4 reads card ownership; the card index (falling back to the chain) by default. */
  reader?: CardOwnershipReader;
}

/** GET /v2/a2a/cards (B4); errors are the bare `{ code, err }`. */
export const a2aCardsRoutes: FastifyPluginAsync<A2aCardsRoutesOptions> = async (plugin, options) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const reader =
    options.reader ?? new IndexedCardOwnershipReader(
      app.services.cardIndex,
      app.services.store.db,
      new ChainCardOwnershipReader(),
      // The error's name only: a node's errors carry its URL, which may hold a key.
      (error) => app.log.warn(`card query of a followed contract read from the chain instead of the card index (${error.name})`),
    );
  app.get('/cards', { schema: { summary: 'B4 Card query: the cards an address owns under an NFT contract', querystring: CardsQuery, response: { 200: described(CardsResponse, 'The cards the address owns under the contract, one page') } } }, async (request) =>
    queryCards(app.services, reader, request.query),
  );
};
