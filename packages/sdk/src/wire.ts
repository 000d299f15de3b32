/**
 * The service's wire bodies, from the types generated out of its OpenAPI document
 * (`generated/openapi.ts`, written by `npm run openapi`). The library's public types are built on
 * or checked against these (wire-types.test.ts), so a changed response schema changes them or
 * fails the build.
 */
import type { paths } from './generated/openapi.ts';

/** The JSON body a Family B operation answers with `status`. */
type JsonAnswer<Path extends keyof paths, Method extends 'get' | 'post', Status extends number> = paths[Path][Method] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** B1's answer. */
export type WirePrepared = JsonAnswer<'/v2/a2a/prepare', 'post', 200>;
/** B3's answer for a request that is not in error. */
export type WireResult = JsonAnswer<'/v2/a2a/result', 'get', 200>;
/** Family B's refusals: a bare error (with `error` on 6408 and 6414), or the keyed body of a key in error. */
export type WireRefusal = JsonAnswer<'/v2/a2a/result', 'get', 400> | JsonAnswer<'/v2/a2a/prepare', 'post', 400>;
/** B2's links. */
export type WireLinks = JsonAnswer<'/v2/a2a/links', 'get', 200>;
/** B4's page of cards. */
export type WireCardList = JsonAnswer<'/v2/a2a/cards', 'get', 200>;
