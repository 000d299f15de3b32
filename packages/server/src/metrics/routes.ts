import { timingSafeEqual, createHash } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

export interface MetricsRouteOptions {
  metrics: { text(): Promise<{ contentType: string; body: string }> };
  /** When set, every scrape must send `Authorization: Bearer <token>`. */
  token: string | null;
}

/** GET /metrics: the Prometheus text exposition (not part of the API document). */
export const metricsRoutes: FastifyPluginAsync<MetricsRouteOptions> = async (app, { metrics, token }) => {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token !== null) {
      const refusal = scrapeRefusal(request.headers.authorization, token);
      if (refusal) return reply.status(refusal.httpStatus).header('www-authenticate', 'Bearer').send(refusal.toBody());
    }
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).send(body);
  });
};

/** A listener of its own for /metrics (config `metrics.port`), apart from the API. */
export async function buildMetricsApp(options: MetricsRouteOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(metricsRoutes, options);
  return app;
}

/** 4003 without a bearer token, 4001 with another one; compared as hashes, so the time taken says nothing about the token. */
function scrapeRefusal(header: string | undefined, token: string): AppError | undefined {
  const given = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (!given) return new AppError(Errors.MissingAuthorization);
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) ? undefined : new AppError(Errors.InvalidAccessToken);
}
