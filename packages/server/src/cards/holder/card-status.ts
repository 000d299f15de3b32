import { GuardedFetchError, guardedFetchJson, type GuardedFetchSettings } from '../../outbound/guarded-fetch.ts';

/** What a card's status_url says: the specification's `valid`, and `attributes` when it gives them. */
export interface CardStatus {
  valid: boolean;
  attributes?: unknown[];
}

/** The status, or why it could not be read (the holder's view shows one or the other). */
export type CardStatusReading = { status: CardStatus } | { status_error: string };

/**
 * Reads a card's status_url (a partner's URL, through the guarded client): its answer must be a
 * JSON object with a boolean `valid` and, optionally, an array `attributes`.
 */
export async function readCardStatus(statusUrl: string, settings: GuardedFetchSettings): Promise<CardStatusReading> {
  let body: unknown;
  try {
    body = await guardedFetchJson(statusUrl, settings);
  } catch (error) {
    if (error instanceof GuardedFetchError) return { status_error: error.message };
    throw error;
  }
  if (typeof body !== 'object' || body === null || typeof (body as { valid?: unknown }).valid !== 'boolean') {
    return { status_error: 'the answer has no boolean valid' };
  }
  const { valid, attributes } = body as { valid: boolean; attributes?: unknown };
  if (attributes !== undefined && !Array.isArray(attributes)) return { status_error: 'attributes in the answer is not an array' };
  return { status: attributes === undefined ? { valid } : { valid, attributes } };
}
