import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import { abandonKeyedCall, beginKeyedCall, finishKeyedCall, requestFingerprint, type HeldKey } from './commands.ts';

/** The Family A routes that change state, by method and route: the ones an Idempotency-Key applies to. */
export const IDEMPOTENT_ROUTES: ReadonlySet<string> = new Set([
  'PUT /v2/partner/', // A2 (and without the trailing slash)
  'PUT /v2/partner',
  'PUT /v2/partner/pin', // A3
  'POST /v2/wallet/mint', // A7
  'POST /v2/wallet/mint/person', // A8
  'POST /v2/wallet/nft/:nft_id/:card_id/send', // A10
  'POST /v2/wallet/nft/:nft_id/:card_id/send/person', // A11
  'DELETE /v2/wallet/nft', // A14
  'POST /v2/escrow/approve', // A15
  'POST /v2/escrow', // A17
  'DELETE /v2/escrow', // A19
  'POST /v2/wallet/invite',
]);

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer that is the stored answer of an earlier call with the same key. */
export const REPLAYED_HEADER = 'idempotent-replayed';
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this call holds while it runs, if it was sent one. */
    idempotency: HeldKey | null;
  }
}

/**
 * Idempotency keys on the Family A routes that change state (docs/partner-api.md): after the
 * access token and the schema, a call with `Idempotency-Key` claims the key in the store and runs,
 * or, when the key was used before with the same request, gets the first call's answer (waiting
 * while that call runs). Answers below 500 are stored; a 5xx lets the key go so a retry runs again
 * (a mint then finds the mint its key recorded rather than minting twice).
 */
export function applyIdempotencyKeys(app: FastifyInstance): void {
  app.decorateRequest('idempotency', null);
  documentIdempotencyKeys(app);
  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || !IDEMPOTENT_ROUTES.has(`${request.method} ${request.routeOptions.url}`) || !request.partner) return;
    const key = Array.isArray(header) ? undefined : header;
    if (!key || !KEY_FORMAT.test(key)) throw new AppError(Errors.BadRequest, { detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters' });
    const fingerprint = requestFingerprint({ method: request.method, route: request.routeOptions.url ?? '', params: request.params, query: request.query, body: request.body });
    const call = await beginKeyedCall(app.services, { partnerId: request.partner.id, key, fingerprint });
    if (call.kind === 'run') {
      request.idempotency = call.held;
      return;
    }
    return replay(reply, call.answer);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotency;
    if (!held) return payload;
    request.idempotency = null;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined;
    if (reply.statusCode >= 500 || body === undefined) await abandonKeyedCall(app.services, held);
    else await finishKeyedCall(app.services, held, { status: reply.statusCode, type: headerText(reply.getHeader('content-type')), body });
    return payload;
  });
  // A call that ended without sending (its connection gone before an answer) lets its key go.
  app.addHook('onResponse', async (request) => {
    const held = request.idempotency;
    if (!held) return;
    request.idempotency = null;
    await abandonKeyedCall(app.services, held);
  });
}

const KEY_DESCRIPTION =
  'Optional. 1 to 255 printable ASCII characters chosen by the partner (a UUID per operation is a good choice), kept 24 hours. ' +
  'A retry with the same key and the same request does not run again: it gets the first answer (refusals included, not a 5xx), ' +
  'byte for byte, with `Idempotent-Replayed: true`, waiting while the first call runs. The same key with another request is ' +
  'refused with 400 and code 4090; a malformed key with 400 and code 400. See docs/partner-api.md.';
const REPLAYED_DESCRIPTION = '`true` when this is the stored answer of an earlier call with the same Idempotency-Key.';

/**
 * Shows the header in the OpenAPI document on exactly the routes above, and Idempotent-Replayed on
 * their answers below 500 (the ones a key stores). The header's schema is only a string: its format
 * is checked by the hook above, after the access token, with the answer docs/partner-api.md gives.
 */
function documentIdempotencyKeys(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => IDEMPOTENT_ROUTES.has(`${method} ${route.url}`))) return;
    const schema = route.schema ?? {};
    if (schema.hide) return;
    const headers = (schema.headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
    const response = (schema.response ?? {}) as Record<string, object>;
    route.schema = {
      ...schema,
      headers: { ...headers, type: 'object', properties: { ...headers.properties, 'Idempotency-Key': { type: 'string', description: KEY_DESCRIPTION } } },
      response: Object.fromEntries(
        Object.entries(response).map(([status, answer]) => [
          status,
          Number(status) < 500 ? { ...answer, headers: { 'Idempotent-Replayed': { type: 'string', enum: ['true'], description: REPLAYED_DESCRIPTION } } } : answer,
        ]),
      ),
    };
  });
}

function replay(reply: FastifyReply, answer: { status: number; type: string | null; body: string }): FastifyReply {
  reply.status(answer.status).header(REPLAYED_HEADER, 'true');
  if (answer.type) reply.type(answer.type);
  return reply.send(answer.body);
}

function headerText(value: ReturnType<FastifyReply['getHeader']>): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : String(value);
}
