import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import { readResult, type ResultAnswer } from './commands.ts';
import { normalizeRequestKey } from './keys.ts';
import { ResultQuery, ResultResponses } from './schema.ts';
import type { KeyWatch, ResultWatcher } from './watcher.ts';
import type { HeldAnswer, HeldResults } from './held-results.ts';
import { epochSeconds } from '../../store/database.ts';

/** Shortest sleep of a long-poll loop, so a clock edge can never make it spin. */
const MIN_SLEEP_MS = 20;

const JSON_TYPE = 'application/json; charset=utf-8';

/** Family B's CORS origin (family.ts): browser BApps call it directly. */
export const A2A_CORS_ORIGIN = '*';

/** What answerHeldPoll reports of each answer (metrics/registry.ts). */
interface HttpRecorder {
  requestAnswered(method: string, route: string, status: number, seconds: number): void;
}

/**
 * GET /v2/a2a/result?request_key=K[&wait=N]; long-polls wait on the watcher of the family's runtime.
 * A poll without `wait` is answered from `held` when the request's answer is held there, serialized
 * once when it was read.
 */
export const a2aResultRoutes: FastifyPluginAsync<{ watcher: ResultWatcher; held: HeldResults }> = async (plugin, { watcher, held }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/result', { schema: { summary: 'B3 Result of a request (long-poll with wait)', querystring: ResultQuery, response: ResultResponses } }, async (request, reply) => {
    const key = normalizeRequestKey(request.query.request_key) ?? request.query.request_key;
    const wait = request.query.wait ?? 0;
    if (wait === 0) {
      const found = await held.find(key, epochSeconds());
      if (found) return sendSerialized(reply, found.httpStatus, found.json);
      const ticket = held.ticket();
      const answer = await readResult(app.services, key);
      // The route's own serializer, for the status answered: the held text is what it would send.
      const json = reply.status(answer.httpStatus).serialize(answer.body) as string;
      held.hold(key, ticket, answer, json);
      return sendSerialized(reply, answer.httpStatus, json);
    }
    // Watched before the first read: a change committed while it is under way still wakes the wait.
    const watch = watcher.watch(key);
    try {
      let answer = await readResult(app.services, key);
      if (!answer.terminal) {
        const aborted = new AbortController();
        reply.raw.once('close', () => aborted.abort());
        answer = await waitForChange(app.services, watch, key, answer, wait * 1000, aborted.signal);
      }
      return reply.status(answer.httpStatus).send(answer.body);
    } finally {
      watch.close();
    }
  });
};

/** The route's pattern, as the metrics name it. */
const RESULT_ROUTE = '/v2/a2a/result';
const HELD_POLL_PREFIX = `${RESULT_ROUTE}?request_key=`;
const REQUEST_KEY_LENGTH = 36;

/**
 * Polls whose answer is held, answered ahead of Fastify (app.ts puts this in front of its request
 * handler); everything else goes on to Fastify (`orElse`), which answers and holds. Only the plain
 * form `GET /v2/a2a/result?request_key=K` with K in its stored form qualifies: no `wait`, nothing
 * else in the query, and so nothing for validation or the NUL and finite checks to refuse. What the
 * route's hooks do for it is done here too: the body its serializer made (held), the family's CORS
 * header, a request id, and the HTTP metrics. The per-request debug log line is not written here:
 * app.ts sends every request to Fastify while debug logging is on.
 */
export function answerHeldPoll(held: HeldResults, recorder: HttpRecorder, request: IncomingMessage, response: ServerResponse, orElse: () => void): void {
  const url = request.url;
  if (request.method !== 'GET' || url === undefined || url.length !== HELD_POLL_PREFIX.length + REQUEST_KEY_LENGTH || !url.startsWith(HELD_POLL_PREFIX)) return orElse();
  const key = url.slice(HELD_POLL_PREFIX.length);
  if (normalizeRequestKey(key) !== key) return orElse();
  const started = performance.now();
  const found = held.find(key, epochSeconds());
  if (found === undefined) return orElse();
  if (!(found instanceof Promise)) return sendHeld(found, recorder, response, started);
  found.then((caughtUp) => (caughtUp ? sendHeld(caughtUp, recorder, response, started) : orElse())).catch((error: Error) => response.destroy(error));
}

function sendHeld(answer: HeldAnswer, recorder: HttpRecorder, response: ServerResponse, started: number): void {
  response.writeHead(answer.httpStatus, {
    'content-type': JSON_TYPE,
    'content-length': answer.bytes,
    'access-control-allow-origin': A2A_CORS_ORIGIN,
    'x-request-id': randomUUID(),
  });
  response.end(answer.json);
  recorder.requestAnswered('GET', RESULT_ROUTE, answer.httpStatus, (performance.now() - started) / 1000);
}

/** A JSON body already serialized by the route's serializer: a string with this type is sent as it is. */
function sendSerialized(reply: FastifyReply, httpStatus: number, json: string): FastifyReply {
  return reply.status(httpStatus).type(JSON_TYPE).send(json);
}

/**
 * Holds a result until it differs from `first` as a BApp would see it (status, result.status, an
 * expiry), or until `waitMs` passed; answers at once when that happens.
 */
async function waitForChange(
  deps: { config: Readonly<Config>; store: Store },
  watch: KeyWatch,
  key: string,
  first: ResultAnswer,
  waitMs: number,
  signal: AbortSignal,
): Promise<ResultAnswer> {
  const deadline = Date.now() + waitMs;
  let answer = first;
  for (;;) {
    const now = Date.now();
    if (now >= deadline || signal.aborted) return answer;
    const untilExpiry = answer.expiresAt !== null ? answer.expiresAt * 1000 - now : Number.POSITIVE_INFINITY;
    await watch.next(answer.marker, Math.max(MIN_SLEEP_MS, Math.min(deadline - now, untilExpiry)), signal);
    const next = await readResult(deps, key);
    // A closed watcher (shutdown) answers the state as it stands.
    if (next.presented !== first.presented || watch.watcherClosed) return next;
    answer = next;
  }
}
