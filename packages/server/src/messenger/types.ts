/** Who a message goes to: a person's name and E.164 phone. */
export interface MessageRecipient {
  name: string;
  phone: string;
}

/** One message to a person; `invite` is the only kind so far. */
export interface MessengerMessage {
  to: MessageRecipient;
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
