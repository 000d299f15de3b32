import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import { clientAddressKey } from '../../sign-in-guard/client-address.ts';
import type { Db } from '../../store/database.ts';
import { rateLimitStoreFor } from './store.ts';

export type RateLimitGroup = keyof Config['http']['rateLimits'];

/** Every limit of `http.rateLimits`. */
export const RATE_LIMIT_GROUPS: readonly RateLimitGroup[] = ['prepare', 'a2aReads', 'signUp', 'signIn', 'claims', 'metadata'];

/**
 * The routes that answer without authentication (or, for the claim page, guard a secret) and the
 * limit each counts against (`http.rateLimits`). Family A has its own limit on all its routes
 * (`partnerApi.rateLimit`, A1 included); health checks, the wallet app's pages and the example BApp
 * are static and not limited. A route of a group shares that group's count per client address.
 */
export const RATE_LIMITED_ROUTES: Readonly<Record<string, RateLimitGroup>> = {
  'POST /v2/a2a/prepare': 'prepare',
  'GET /v2/a2a/result': 'a2aReads',
  'GET /v2/a2a/links': 'a2aReads',
  'GET /v2/a2a/qr': 'a2aReads',
  'GET /v2/a2a/cards': 'a2aReads',
  'GET /v2/a2a/chains': 'a2aReads',
  'POST /v2/a2a/rpc/:chain': 'a2aReads',
  'POST /v2/wallet-app/members': 'signUp',
  'POST /v2/wallet-app/sessions': 'signIn',
  'POST /v2/wallet-app/claims/:claim_id/view': 'claims',
  'POST /v2/wallet-app/claims/:claim_id/claim': 'claims',
  'GET /v2/metadata/:nft_id/:card_id': 'metadata',
  'GET /v2/files/:filename': 'metadata',
};

/**
 * Registers the one per-address rate limiter (@fastify/rate-limit) on the app, before any route:
 * it answers 429 with the registry's TooManyRequests (each family's error handler gives it that
 * family's body) and `Retry-After`, counts per clientAddressKey, and before the body is read, so a
 * refused request changes nothing. Each route of RATE_LIMITED_ROUTES gets its group's limit here;
 * Family A asks for its own with `app.rateLimit` (partner-api/family.ts). A limit with
 * `acrossInstances` counts in the store (store.ts), the others in this process.
 */
export async function registerRateLimits(app: FastifyInstance, deps: { config: Readonly<Config>; db: Db; onExceeded: () => void }): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => clientAddressKey(request.ip),
    // The x-ratelimit-* headers go on the 429 only: B3 polls answered from memory before routing
    // (a2a/requests/held-results.ts) could not carry them, and the same answer must not differ by path.
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder: () => new AppError(Errors.TooManyRequests),
    onExceeded: deps.onExceeded,
    store: rateLimitStoreFor(deps.db),
  });
  const handlers = new Map<RateLimitGroup, onRequestHookHandler>();
  const handlerOf = (group: RateLimitGroup) => {
    let handler = handlers.get(group);
    if (!handler) {
      const limit = deps.config.http.rateLimits[group];
      const options: RateLimitOptions & { limitName: string; acrossInstances: boolean } = {
        max: limit.max,
        timeWindow: limit.timeWindowMs,
        limitName: group,
        acrossInstances: limit.acrossInstances,
      };
      handler = app.rateLimit(options);
      handlers.set(group, handler);
    }
    return handler;
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const group = methods.map((method) => RATE_LIMITED_ROUTES[`${method === 'HEAD' ? 'GET' : method} ${route.url}`]).find(Boolean);
    if (!group) return;
    const hooks = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [handlerOf(group), ...hooks];
  });
}
