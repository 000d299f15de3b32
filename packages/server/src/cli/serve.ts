import type { FastifyInstance } from 'fastify';
import { withPort, type Config } from '../config/config.ts';
import { buildApp, type App } from '../app.ts';
import { openServices, type Services } from '../services.ts';
import { startBackgroundJobs, type BackgroundJobs } from '../background-jobs.ts';
import { reservePort } from '../chain/managed-node.ts';
import { buildMetricsApp } from '../metrics/routes.ts';
import { createLogger } from '../logging/logger.ts';
import { maskUrl } from '../logging/redaction.ts';
import { claimDataDir } from './service-record.ts';
import { startInstanceHeartbeat, type InstanceHeartbeat } from '../custody/instances.ts';
import { DEFAULT_SCRYPT_COST } from '../config/scrypt-cost.ts';

/** The whole shutdown stays under the 10 s that supervisors (Kubernetes, systemd) commonly give. */
const SHUTDOWN_LIMIT_MS = 9_000;
/** Requests still running after this long (a mint waiting for its blocks) have their connections closed. */
const REQUEST_DRAIN_MS = 5_000;

/**
 * `wallet-service serve`: opens everything, listens, and shuts down cleanly on SIGINT/SIGTERM:
 * new requests are refused (503), App2App long-polls answer at once with their current state,
 * requests under way get REQUEST_DRAIN_MS to finish (what they stored, the outbox and mint
 * recovery finish in the next process), then the background jobs stop and the embedded nodes with
 * the rest. A second signal, or a shutdown past SHUTDOWN_LIMIT_MS, ends the process at once.
 * A failure at any step of the start stops what had started (nodes included) and is thrown, so the
 * process exits non-zero with the reason.
 */
export async function serve(configured: Readonly<Config>): Promise<number> {
  // PORT=0: the port is chosen first, so the public URL written into card contracts is the real one,
  // and held until the app listens on it (the embedded nodes started meanwhile probe ports too).
  const reserved = configured.port === 0 ? await reservePort(configured.host) : undefined;
  const config = reserved ? withPort(configured, reserved.port) : configured;
  const log = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true, config });
  const claim = claimDataDir(config);
  let services: Services | undefined;
  let jobs: BackgroundJobs | undefined;
  let heartbeat: InstanceHeartbeat | undefined;
  let app: App | undefined;
  let metricsApp: FastifyInstance | undefined;
  let closing: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    closing ??= (async () => {
      log.info(`${signal}: stopping`);
      const started = Date.now();
      const limit = setTimeout(() => {
        log.error(`shutdown took longer than ${SHUTDOWN_LIMIT_MS} ms; exiting now`);
        // The embedded nodes go with the process rather than outlive it while they dump their state.
        void Promise.resolve(services?.chains.killNodes()).finally(() => process.exit(1));
      }, SHUTDOWN_LIMIT_MS);
      limit.unref();
      await closeApp(app, log);
      // Serving no more: the row goes, so `keys finish-rotation` no longer waits for this instance.
      await heartbeat?.stop().catch((error: Error) => log.error(error.message));
      await metricsApp?.close();
      await jobs?.stop();
      await services?.close();
      claim.release();
      clearTimeout(limit);
      log.info(`stopped in ${Date.now() - started} ms`);
    })();
    return closing;
  };
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  /** From here a signal shuts down in order (before, it ends the process; the nodes' watchdogs stop the nodes). */
  const stopOnSignals = () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (closing) {
          log.warn(`${signal} again: exiting without finishing the shutdown`);
          void Promise.resolve(services?.chains.killNodes()).finally(() => process.exit(1));
          return;
        }
        void shutdown(signal).then(stop, (error: Error) => {
          log.error(error);
          stop();
        });
      });
    }
  };
  try {
    if (config.custody.scryptCost < DEFAULT_SCRYPT_COST) {
      log.warn(`custody.scryptCost is ${config.custody.scryptCost}, below the default ${DEFAULT_SCRYPT_COST}: passwords and PINs set from now on are cheaper to guess; for test installations only`);
    }
    services = await openServices(config, { chainMode: 'own', log });
    // The master key this instance runs with, in the store for `keys status` and `keys finish-rotation`.
    heartbeat = await startInstanceHeartbeat({ db: services.store.db, masterKeyId: services.vault.masterKeyId, log });
    jobs = await startBackgroundJobs(services);
    app = await buildApp({ services, logger: log.child({ component: 'http' }) as never });
    await reserved?.release();
    const address = await app.listen({ host: config.host, port: config.port });
    let metricsAt = `${address}/metrics`;
    if (config.metrics.port !== null) {
      metricsApp = await buildMetricsApp({ metrics: services.metrics, token: config.metrics.token });
      metricsAt = `${await metricsApp.listen({ host: config.metrics.host, port: config.metrics.port })}/metrics`;
    }
    const chains = services.chains
      .all()
      .map((chain) => `  ${chain.name}: ${maskUrl(chain.rpcUrl)} (chain id ${chain.chainId}${chain.managed ? ', embedded' : ''})`)
      .join('\n');
    // Before the line a supervisor (or a test) waits for: a signal sent as soon as it reads it is
    // then a shutdown in order, not the default end of the process.
    stopOnSignals();
    process.stdout.write(
      `wallet service listening on ${address}\n` +
        `  public url: ${config.publicUrl}\n  health: ${address}/health\n  metrics: ${metricsAt}${config.metrics.token ? ' (bearer token)' : ''}\n` +
        `  data dir: ${config.dataDir} (${config.databaseUrl ? 'PostgreSQL' : 'SQLite'} store)\n` +
        `  operator: ${services.operator.address}\nchains:\n${chains}\n`,
    );
  } catch (error) {
    await reserved?.release();
    await shutdown('start-up failure');
    throw error;
  }
  await stopped;
  // Whatever still holds the event loop open (a socket a client keeps) must not keep the process.
  setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
  return 0;
}

/** Stops listening and waits for requests under way, closing their connections after REQUEST_DRAIN_MS. */
async function closeApp(app: App | undefined, log: { warn(message: string): void }): Promise<void> {
  if (!app) return;
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), REQUEST_DRAIN_MS))),
  ]);
  clearTimeout(timer);
  if (drained) return;
  log.warn(`requests still running after ${REQUEST_DRAIN_MS} ms: closing their connections (their stored work is finished by the next start)`);
  app.server.closeAllConnections();
  await closed;
}
