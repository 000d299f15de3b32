import type { Person } from '../people/person.ts';

/** One message to a person; `invite` is the only kind so far. */
export interface MessengerMessage {
  to: Person;
  kind: 'invite';
  text: string;
}

/**
 * Sends messages to people by phone. Implementations throw AppError 501 ("fail to send messenger
 * message") when a message could not be handed over.
 */
export interface Messenger {
  send(message: MessengerMessage): Promise<void>;
}

export interface MessengerLog {
  info(message: string): void;
}
