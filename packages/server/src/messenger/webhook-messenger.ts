import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Messenger, MessengerMessage } from './types.ts';
import { Errors } from '../errors/codes.ts';

/** How long a webhook has to answer. */
export const WEBHOOK_TIMEOUT_MS = 5_000;

/**
 * Hands each message to a webhook: `POST <url>` with the JSON `{ id, kind, to: { name, phone }, text }`.
 * Any 2xx answer within the timeout is success; anything else (an error status, a redirect, no answer
 * in time, a refused connection) is AppError 501. `id` is new per message, for the receiver to drop
 * repeats.
 */
export class WebhookMessenger implements Messenger {
  readonly #url: string;
  readonly #timeoutMs: number;

  constructor(url: string, options: { timeoutMs?: number } = {}) {
    this.#url = url;
    this.#timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  }

  async send(message: MessengerMessage): Promise<void> {
    const body = JSON.stringify({ id: randomUUID(), kind: message.kind, to: { name: message.to.name, phone: message.to.phone }, text: message.text });
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new AppError(Errors.MessengerSendFailed, { detail: `the messenger webhook did not answer: ${(error as Error).message}`, cause: error });
    }
    await response.body?.cancel().catch(() => undefined);
    if (response.status < 200 || response.status > 299) {
      throw new AppError(Errors.MessengerSendFailed, { detail: `the messenger webhook answered ${response.status}` });
    }
  }
}
