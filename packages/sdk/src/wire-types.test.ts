import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type {
  A2aError,
  AuthResult,
  CanceledState,
  CompletedState,
  PendingState,
  Prepared,
  RequestErrorState,
  RequestLinks,
  SignatureResult,
  TransactionResult,
} from './types.ts';
import type { WireLinks, WirePrepared, WireRefusal, WireResult } from './wire.ts';
// @ts-expect-error: a plain .mjs script, no declarations
import { DOCUMENT_PATH, GENERATED_PATH, generatedWireTypes } from '../scripts/generate-types.mjs';

/**
 * The library's hand-written types against the wire types generated from the service's document:
 * `tsc` fails on any of these when a response schema changes under them.
 */
type Extends<A, B> = [A] extends [B] ? true : false;
type Both<A, B> = Extends<A, B> extends true ? Extends<B, A> : false;
/** Without index signatures (`additionalProperties: true`), which interfaces do not have. */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
type Outcome = Known<NonNullable<WireResult['result']>>;
type KeyedError = Extract<WireRefusal, { request_key: string }>;

export type WireChecks = [
  // B1: what prepare resolves to is the wire answer, with the type the library adds.
  Both<Omit<Prepared, 'type' | 'request_key'> & { request_key: string }, WirePrepared>,
  // B3: every state the library reads is one the service sends.
  Extends<PendingState | CanceledState, Omit<WireResult, 'result'>>,
  Extends<Omit<CompletedState, 'result'>, Omit<WireResult, 'result'>>,
  Extends<AuthResult, Outcome>,
  Extends<TransactionResult, Outcome>,
  Extends<SignatureResult, Outcome>,
  // Refusals: the keyed body of a key in error, and the bare pair.
  Extends<KeyedError, Pick<RequestErrorState, 'request_key' | 'expiration_time' | 'status' | 'error'>>,
  Extends<Exclude<WireRefusal, KeyedError>, Pick<A2aError, 'code' | 'err' | 'message'>>,
  // B2: the link forms the library passes on.
  Extends<WireLinks, Omit<RequestLinks, 'url'>>,
];

const checked: WireChecks = [true, true, true, true, true, true, true, true, true];

test('the hand-written wire types agree with the generated ones', () => {
  assert.ok(checked.every(Boolean));
});

test('src/generated/openapi.ts is what docs/openapi.json generates (npm run openapi writes both)', async () => {
  const generated = await generatedWireTypes(readFileSync(DOCUMENT_PATH, 'utf8'));
  assert.ok(readFileSync(GENERATED_PATH, 'utf8') === generated, 'packages/sdk/src/generated/openapi.ts is stale: run npm run openapi');
});
