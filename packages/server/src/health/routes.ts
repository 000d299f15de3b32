import type { FastifyPluginAsync } from 'fastify';
import { HealthSchema } from './schema.ts';

const TIMEOUT_MS = 3_000;

/** GET /health: 200 only when the store and every configured chain answer. */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/health', { schema: HealthSchema }, async (_request, reply) => {
    const { store, chains } = app.services;
    const checks = await Promise.all([
      check('store', () => store.ping()),
      ...chains.all().map((chain) => check(`chain:${chain.name}`, () => chain.client.request({ method: 'eth_blockNumber' }))),
    ]);
    const failed = checks.filter((result) => !result.ok);
    return reply.status(failed.length ? 503 : 200).send({
      status: failed.length ? 'unavailable' : 'ok',
      checks: Object.fromEntries(checks.map((result) => [result.name, result.ok ? 'ok' : result.error])),
    });
  });
};

async function check(name: string, probe: () => Promise<unknown>): Promise<{ name: string; ok: boolean; error?: string }> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), TIMEOUT_MS).unref()),
    ]);
    return { name, ok: true };
  } catch (error) {
    return { name, ok: false, error: (error as Error).message.split('\n')[0] };
  }
}
