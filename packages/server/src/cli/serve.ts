import { pino } from 'pino';
import type { Config } from '../config/config.ts';
import { buildApp } from '../app.ts';
import { openServices } from '../services.ts';

/** `wallet-service serve`: opens everything, listens, and shuts down cleanly on SIGINT/SIGTERM. */
export async function serve(config: Readonly<Config>): Promise<number> {
  const log = pino({ level: config.logLevel });
  const services = await openServices(config, { chainMode: 'own', runOutbox: true, log });
  const app = await buildApp({ services, logger: log.child({ component: 'http' }) as never });
  let closing: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    closing ??= (async () => {
      log.info(`${signal}: stopping`);
      await app.close();
      await services.close();
    })();
    return closing;
  };
  try {
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
