/**
 * App2App result polling through the real HTTP server. Run: node --import tsx packages/server/bench/a2a.bench.ts
 * (or `npm run bench -- a2a` from the repository root).
 *
 * The real services (temporary data directory, embedded chain, SQLite, or PostgreSQL with
 * WALLET_TEST_STORE=postgres) and the real app listen on loopback. A completed auth request is
 * polled with GET /v2/a2a/result by CONNECTIONS keep-alive connections for DURATION seconds; in the
 * same run a bare Fastify route on loopback answers the same JSON body as a constant. The load
 * comes from worker threads, so it does not share the servers' event loop. Prints requests per
 * second of both, their ratio (target: at least 0.75) and latency percentiles. Asserts nothing.
 *
 * Env: A2A_BENCH_CONNECTIONS (100), A2A_BENCH_SECONDS (10), A2A_BENCH_WORKERS (1), A2A_BENCH_WARMUP_SECONDS (1).
 */
import { Worker } from 'node:worker_threads';

const CONNECTIONS = Number(process.env.A2A_BENCH_CONNECTIONS ?? 100);
const SECONDS = Number(process.env.A2A_BENCH_SECONDS ?? 10);
const WORKERS = Number(process.env.A2A_BENCH_WORKERS ?? 1);
const WARMUP_SECONDS = Number(process.env.A2A_BENCH_WARMUP_SECONDS ?? 1);
const TARGET_RATIO = 0.75;

interface LoadResult {
  requests: number;
  errors: number;
  /** Latencies in microseconds. */
  latencies: Float64Array;
  elapsedMs: number;
}

/**
 * The load generator, run in worker threads (plain JavaScript, so a worker needs no TypeScript
 * loader): `connections` loops of keep-alive GETs until the duration ends.
 */
const LOAD_WORKER = `
const { Agent, request } = require('node:http');
const { parentPort, workerData: job } = require('node:worker_threads');
const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
const latencies = [];
let errors = 0;
const started = performance.now();
const end = started + job.durationMs;
const once = () => new Promise((resolve) => {
  const sent = performance.now();
  const call = request({ host: '127.0.0.1', port: job.port, path: job.path, agent }, (response) => {
    if (response.statusCode !== 200) errors += 1;
    response.resume();
    response.on('end', () => { latencies.push((performance.now() - sent) * 1000); resolve(); });
  });
  call.on('error', () => { errors += 1; resolve(); });
  call.end();
});
Promise.all(Array.from({ length: job.connections }, async () => { while (performance.now() < end) await once(); })).then(() => {
  agent.destroy();
  const result = { requests: latencies.length, errors, latencies: Float64Array.from(latencies), elapsedMs: performance.now() - started };
  parentPort.postMessage(result, [result.latencies.buffer]);
});
`;

async function drive(port: number, path: string, seconds: number): Promise<{ perSecond: number; p50: number; p99: number; max: number; errors: number }> {
  const perWorker = Math.max(1, Math.floor(CONNECTIONS / WORKERS));
  const results = await Promise.all(
    Array.from(
      { length: WORKERS },
      () =>
        new Promise<LoadResult>((resolve, reject) => {
          const worker = new Worker(LOAD_WORKER, { eval: true, workerData: { port, path, connections: perWorker, durationMs: seconds * 1000 } });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  const latencies = Float64Array.from(results.flatMap((result) => [...result.latencies])).sort();
  const requests = results.reduce((sum, result) => sum + result.requests, 0);
  const elapsed = Math.max(...results.map((result) => result.elapsedMs));
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    perSecond: (requests / elapsed) * 1000,
    p50: at(0.5) / 1000,
    p99: at(0.99) / 1000,
    max: (latencies.at(-1) ?? 0) / 1000,
    errors: results.reduce((sum, result) => sum + result.errors, 0),
  };
}

async function runBench(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { buildApp } = await import('../src/app.ts');
  const { openTestServices } = await import('../src/testing/test-services.ts');
  const { buildUser } = await import('../src/testing/factories.ts');
  const { prepareRequest } = await import('../src/a2a/prepare/commands.ts');
  const { approveRequest } = await import('../src/a2a/approval/commands.ts');

  const services = await openTestServices();
  const app = await buildApp({ services });
  const bare = Fastify({ logger: false });
  try {
    const member = await buildUser(services);
    const prepared = await prepareRequest(services, { bapp: { name: 'Bench BApp' }, type: 'auth' });
    const approved = await approveRequest(services, { requestKey: prepared.request_key, userId: member.user.id, pinHash: member.pinHash });
    if (approved.httpStatus !== 200) throw new Error(`approval failed: ${JSON.stringify(approved.body)}`);
    const constant = approved.body;
    bare.get('/constant', async () => constant);

    await app.listen({ host: '127.0.0.1', port: 0 });
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const appPort = (app.server.address() as { port: number }).port;
    const barePort = (bare.server.address() as { port: number }).port;
    const resultPath = `/v2/a2a/result?request_key=${prepared.request_key}`;

    console.log(`store: ${services.store.dialect}; ${CONNECTIONS} connections, ${WORKERS} load worker(s), ${SECONDS} s each`);
    await drive(barePort, '/constant', WARMUP_SECONDS);
    await drive(appPort, resultPath, WARMUP_SECONDS);
    const baseline = await drive(barePort, '/constant', SECONDS);
    const polls = await drive(appPort, resultPath, SECONDS);

    const row = (name: string, r: typeof baseline) =>
      `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   max ${r.max.toFixed(2)} ms   errors ${r.errors}`;
    console.log(row('bare Fastify, constant JSON', baseline));
    console.log(row('GET /v2/a2a/result (completed key)', polls));
    const ratio = polls.perSecond / baseline.perSecond;
    console.log(`ratio ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'not met'}); p99 at ${CONNECTIONS} connections: ${polls.p99.toFixed(2)} ms`);
  } finally {
    await bare.close();
    await app.close();
    await services.cleanup();
  }
}

await runBench();
