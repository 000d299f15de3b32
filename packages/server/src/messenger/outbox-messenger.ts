import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import { epochSeconds, type Db } from '../store/database.ts';
import { maskPhone } from './mask-phone.ts';
import { insertMessage } from './store.ts';
import type { Messenger, MessengerLog, MessengerMessage } from './types.ts';
import { Errors } from '../errors/codes.ts';

/**
 * The default messenger: each message becomes a row of `messenger_messages` (for an operator or a
 * relay to deliver) and one log line, in which the phone number's middle digits are hidden.
 */
export class OutboxMessenger implements Messenger {
  readonly #db: Db;
  readonly #log: MessengerLog;

  constructor(db: Db, log: MessengerLog) {
    this.#db = db;
    this.#log = log;
  }

  async send(message: MessengerMessage): Promise<void> {
    const id = randomUUID();
    try {
      await insertMessage(this.#db, { id, kind: message.kind, to_name: message.to.name, to_phone: message.to.phone, text: message.text, created_at: epochSeconds() });
    } catch (error) {
      throw new AppError(Errors.MessengerSendFailed, { detail: `the outbox refused message ${id}`, cause: error });
    }
    this.#log.info(`messenger: ${message.kind} message ${id} to ${maskPhone(message.to.phone)} in the outbox`);
  }
}
