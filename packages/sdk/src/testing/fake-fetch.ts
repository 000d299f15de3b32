import assert from 'node:assert/strict';
import { isError, type A2aError } from '../index.ts';

/**
 * A fetch for unit tests: answers from a list of handlers in order and records every call. A
 * handler returns `{ status, body }` (JSON unless `text` is given), or `'hang'` to wait until the
 * request is aborted, or throws to act as a network failure.
 */
export interface FakeCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

export type FakeAnswer = { status?: number; body?: unknown; text?: string } | 'hang';
export type FakeHandler = (call: FakeCall) => FakeAnswer | Promise<FakeAnswer>;

export interface FakeFetch {
  fetch: typeof fetch;
  calls: FakeCall[];
  /** URLs of the calls, without the base URL. */
  paths(): string[];
}

export const BASE = 'https://a2a.example';

export function fakeFetch(...handlers: Array<FakeHandler | FakeAnswer>): FakeFetch {
  const calls: FakeCall[] = [];
  const fetcher = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const call: FakeCall = {
      url: String(input),
      method: init.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const handler = handlers[calls.length - 1];
    if (handler === undefined) throw new Error(`unexpected call ${calls.length}: ${call.method} ${call.url}`);
    const answer = typeof handler === 'function' ? await handler(call) : handler;
    if (answer === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        const signal = init.signal;
        if (!signal) return reject(new Error('a hanging call needs a signal'));
        signal.addEventListener('abort', () => reject(signal.reason ?? new DOMException('aborted', 'AbortError')), { once: true });
      });
    }
    const text = answer.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
    return new Response(text, { status: answer.status ?? 200, headers: { 'content-type': 'application/json' } });
  };
  return {
    fetch: fetcher as typeof fetch,
    calls,
    paths: () => calls.map((call) => call.url.replace(BASE, '')),
  };
}

/** A result body in a state. */
export function state(status: string, extra: Record<string, unknown> = {}) {
  return { body: { request_key: KEY, expiration_time: 1_767_225_600, status, ...extra } };
}

/** Asserts that an answer is not a failure and narrows it. */
export function expectOk<T>(value: T | A2aError): T {
  assert.ok(!isError(value), `expected an answer, got ${JSON.stringify(value)}`);
  return value as T;
}

/** Runs `body` with a global property replaced, then puts the old value back. */
export async function withGlobal<T>(name: string, value: unknown, body: () => T | Promise<T>): Promise<T> {
  const target = globalThis as Record<string, unknown>;
  const had = Object.prototype.hasOwnProperty.call(target, name);
  const before = Object.getOwnPropertyDescriptor(target, name);
  Object.defineProperty(target, name, { value, configurable: true, writable: true });
  try {
    return await body();
  } finally {
    if (had && before) Object.defineProperty(target, name, before);
    else delete target[name];
  }
}

export const KEY = '3f0c9a1e-5b7d-2c44-9e01-a8d3f6b2c710';
