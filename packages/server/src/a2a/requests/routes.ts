import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import { readResult, type ResultAnswer } from './commands.ts';
import { normalizeRequestKey } from './keys.ts';
import { ResultQuery, ResultResponses, type ResultBody } from './schema.ts';
import type { ResultWatcher } from './watcher.ts';

/** Finished answers cannot change; they are served from memory for this long. */
const CACHE_MS = 1_000;
const CACHE_LIMIT = 10_000;
/** Shortest sleep of a long-poll loop, so a clock edge can never make it spin. */
const MIN_SLEEP_MS = 20;

/** GET /v2/a2a/result?request_key=K[&wait=N]; long-polls wait on the watcher of the family's runtime. */
export const a2aResultRoutes: FastifyPluginAsync<{ watcher: ResultWatcher }> = async (plugin, { watcher }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const finished = new Map<string, { until: number; status: 200 | 400; payload: string }>();

  app.get('/result', { schema: { summary: 'B3 Result of a request (long-poll with wait)', querystring: ResultQuery, response: ResultResponses } }, async (request, reply) => {
    const key = normalizeRequestKey(request.query.request_key) ?? request.query.request_key;
    const cached = finished.get(key);
    if (cached && cached.until > Date.now()) {
      // Already serialized: a string with a JSON type is sent as it is, not serialized again.
      return reply.status(cached.status).type('application/json; charset=utf-8').send(cached.payload as unknown as ResultBody);
    }
    let answer = await readResult(app.services, key);
    const wait = request.query.wait ?? 0;
    if (wait > 0 && !answer.terminal) {
      const aborted = new AbortController();
      reply.raw.once('close', () => aborted.abort());
      answer = await waitForChange(app.services, watcher, key, answer, wait * 1000, aborted.signal);
    }
    if (answer.terminal && answer.readableUntil !== null) {
      if (finished.size >= CACHE_LIMIT) finished.delete(finished.keys().next().value!);
      // Never past the end of retention, when the key must start answering 6000.
      const until = Math.min(Date.now() + CACHE_MS, (answer.readableUntil + 1) * 1000);
      finished.set(key, { until, status: answer.httpStatus, payload: JSON.stringify(answer.body) });
    }
    return reply.status(answer.httpStatus).send(answer.body);
  });
};

/**
 * Holds a result until it differs from `first` as a BApp would see it (status, result.status, an
 * expiry), or until `waitMs` passed; answers at once when that happens.
 */
async function waitForChange(
  deps: { config: Readonly<Config>; store: Store },
  watcher: ResultWatcher,
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
    await watcher.wait(key, answer.marker, Math.max(MIN_SLEEP_MS, Math.min(deadline - now, untilExpiry)), signal);
    const next = await readResult(deps, key);
    if (next.presented !== first.presented) return next;
    answer = next;
  }
}
