import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret, `whsec_` and 24 random bytes in base64 (Standard Webhooks). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * The `webhook-signature` header of a message (Standard Webhooks): `v1,` and the base64
 * HMAC-SHA256, keyed with the secret's decoded bytes, of `<webhook-id>.<webhook-timestamp>.<body>`.
 *
 * @example
 * signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
 * // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header signed with each secret, space-separated (during a rotation's overlap, the new secret and the old). */
export function signatureHeader(secrets: string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signWebhook(secret, messageId, timestampSeconds, body)).join(' ');
}

/** Whether one of a header's space-separated signatures is this message's (what a receiver checks). */
export function verifyWebhookSignature(secret: string, messageId: string, timestampSeconds: number, body: string, header: string): boolean {
  const expected = Buffer.from(signWebhook(secret, messageId, timestampSeconds, body));
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
