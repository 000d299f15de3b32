/** Messages to people by phone (invites): an adapter, the store's outbox table by default. */
export { maskPhone } from './mask-phone.ts';
export { openMessenger } from './messenger.ts';
export { OutboxMessenger } from './outbox-messenger.ts';
export type { Messenger, MessengerLog, MessengerMessage } from './types.ts';
export { WEBHOOK_TIMEOUT_MS, WebhookMessenger } from './webhook-messenger.ts';
