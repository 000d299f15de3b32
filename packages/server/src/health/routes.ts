import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { BaseError } from 'viem';
import { HealthSchema, LivenessSchema, ReadinessSchema } from './schema.ts';
import { oldestUnminedCreatedMs } from './store.ts';

const TIMEOUT_MS = 3_000;

/**
 * GET /health: 200 only when the store and every configured chain answer (the specification's).
 * GET /health/live: the process answers (restart it when this fails).
 * GET /health/ready: /health's checks and an outbox that is not stuck (send it traffic while 200).
 */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  const checksOf = () => {
    const { store, chains } = app.services;
    return [
      check('store', () => store.ping()),
      ...chains.all().map((chain) => check(`chain:${chain.name}`, () => chain.client.request({ method: 'eth_blockNumber' }))),
    ];
  };

  app.get('/health', { schema: HealthSchema }, async (_request, reply) => answer(reply, await Promise.all(checksOf())));

  app.get('/health/live', { schema: LivenessSchema }, async () => ({ status: 'ok' as const, checks: { process: 'ok' } }));

  app.get('/health/ready', { schema: ReadinessSchema }, async (_request, reply) => {
    const { store, config } = app.services;
    const outbox = check('outbox', async () => {
      const oldest = await oldestUnminedCreatedMs(store.db);
      const waitedSeconds = oldest === undefined ? 0 : Math.floor((Date.now() - oldest) / 1000);
      if (waitedSeconds >= config.outbox.stuckAfterSeconds) throw new Error(`a transaction has waited ${waitedSeconds} s for its receipt`);
    });
    return answer(reply, await Promise.all([...checksOf(), outbox]));
  });
};

type CheckResult = { name: string; ok: boolean; error?: string };

function answer(reply: FastifyReply, checks: CheckResult[]) {
  const failed = checks.some((result) => !result.ok);
  return reply.status(failed ? 503 : 200).send({
    status: failed ? 'unavailable' : 'ok',
    checks: Object.fromEntries(checks.map((result) => [result.name, result.ok ? 'ok' : result.error])),
  });
}

async function check(name: string, probe: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), TIMEOUT_MS).unref()),
    ]);
    return { name, ok: true };
  } catch (error) {
    return { name, ok: false, error: reasonOf(error) };
  }
}

/**
 * Why a check failed, in one line. For a node's call, viem's message says only "HTTP request
 * failed."; its details say why (`connect ECONNREFUSED 127.0.0.1:8545`, a timeout, the node's own
 * error) without the URL, which may hold a provider's key.
 */
function reasonOf(error: unknown): string {
  const details = error instanceof BaseError ? error.details : undefined;
  return (details || (error as Error).message).split('\n')[0]!;
}
