import { described, ErrorBody } from '../../http/schema.ts';

/** The 409 of every route that moves, burns, escrows or cancels a card (cards/claims). */
export const CardBusyAnswer = described(ErrorBody, 'another operation on this card is in progress (4209): nothing was signed; try again once it has answered');
