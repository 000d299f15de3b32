export { CardIndex, type CardIndexOptions } from './card-index.ts';
export type { CardIndexEvents, CardIndexLog } from './chain-indexer.ts';
export {
  MAX_PAGE_SIZE,
  type CardPage,
  type HeldContract,
  type HeldContractPage,
  type IndexedCard,
  type ListCardsByOwnerInput,
  type ListContractsHeldByInput,
} from './store.ts';
export { InvalidCardCursorError, encodeCardCursor, decodeCardCursor, type CardPosition } from './page-cursor.ts';
