import { randomBytes } from 'node:crypto';

const REQUEST_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A new request key: 128 random bits printed in the UUID-like 8-4-4-4-12 hex form. Not
 * `randomUUID()`, whose version and variant bits leave only 122 random bits.
 *
 * @example newRequestKey() // '3f0c9a1e-5b7d-2c44-9e01-a8d3f6b2c710'
 */
export function newRequestKey(): string {
  const hex = randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The key in its stored (lower-case) form, or undefined when it cannot be a request key. */
export function normalizeRequestKey(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const key = value.trim().toLowerCase();
  return REQUEST_KEY.test(key) ? key : undefined;
}
