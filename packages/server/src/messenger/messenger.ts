import type { Config } from '../config/config.ts';
import type { Db } from '../store/database.ts';
import { OutboxMessenger } from './outbox-messenger.ts';
import { WebhookMessenger } from './webhook-messenger.ts';
import type { Messenger, MessengerLog } from './types.ts';

export type { Messenger, MessengerLog, MessengerMessage } from './types.ts';

/** The messenger the config names: `outbox` (the store and the log) or `webhook`. */
export function openMessenger(config: Readonly<Config['messenger']>, dependencies: { db: Db; log: MessengerLog }): Messenger {
  switch (config.kind) {
    case 'outbox':
      return new OutboxMessenger(dependencies.db, dependencies.log);
    case 'webhook':
      return new WebhookMessenger(config.url);
  }
}
