import { pino } from 'pino';
import { withPort, type Config } from '../config/config.ts';
import { buildApp, type App } from '../app.ts';
import { openServices, type Services } from '../services.ts';
import { startBackgroundJobs, type BackgroundJobs } from '../background-jobs.ts';
import { freePort } from '../chain/managed-node.ts';
import { claimDataDir } from './service-record.ts';

/**
 * `wallet-service serve`: opens everything, listens, and shuts down cleanly on SIGINT/SIGTERM.
 * A failure at any step of the start stops what had started (nodes included) and is thrown, so the
 * process exits non-zero with the reason.
 */
export async function serve(configured: Readonly<Config>): Promise<number> {
  // PORT=0: the port is chosen first, so the public URL written into card contracts is the real one.
  const config = configured.port === 0 ? withPort(configured, await freePort(configured.host)) : configured;
  const log = pino({ level: config.logLevel });
  const claim = claimDataDir(config);
  let services: Services | undefined;
  let jobs: BackgroundJobs | undefined;
  let app: App | undefined;
  let closing: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    closing ??= (async () => {
      log.info(`${signal}: stopping`);
      await app?.close();
      await jobs?.stop();
      await services?.close();
      claim.release();
    })();
    return closing;
  };
  try {
    services = await openServices(config, { chainMode: 'own', log });
    jobs = await startBackgroundJobs(services);
    app = await buildApp({ services, logger: log.child({ component: 'http' }) as never });
    const address = await app.listen({ host: config.host, port: config.port });
    const chains = services.chains
      .all()
      .map((chain) => `  ${chain.name}: ${chain.rpcUrl} (chain id ${chain.chainId}${chain.managed ? ', embedded' : ''})`)
      .join('\n');
    process.stdout.write(
      `wallet service listening on ${address}\n` +
        `  public url: ${config.publicUrl}\n  health: ${address}/health\n` +
        `  data dir: ${config.dataDir} (${config.databaseUrl ? 'PostgreSQL' : 'SQLite'} store)\n` +
        `  operator: ${services.operator.address}\nchains:\n${chains}\n`,
    );
  } catch (error) {
    await shutdown('start-up failure');
    throw error;
  }
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => void shutdown(signal).then(resolve, resolve));
    }
  });
  return 0;
}
