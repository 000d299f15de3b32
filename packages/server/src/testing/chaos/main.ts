/**
 * `npm run chaos -- --duration <s> --seed <n> [--instances 3] [--store postgres|sqlite] [--workers 4] [--kill-every <s>] [--reorgs [--reorg-every <s>]]`
 *
 * --reorgs reorganises the chain under the load (anvil_reorg, depth 1 to 5) instead of killing
 * processes; --kill-every given as well does both. --confirmations 0|<depth>|safe|finalized is the
 * chain's rule for the services (default 0).
 *
 * PostgreSQL comes from --database-url, else TEST_DATABASE_URL or DATABASE_URL; the run makes a
 * fresh schema there and drops it at the end. Prints the figures; exits 1 on any discrepancy.
 */
import { parseArgs } from 'node:util';
import { formatReport, reportFailed } from './report.ts';
import { runChaos } from './harness.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    instances: { type: 'string' },
    store: { type: 'string' },
    workers: { type: 'string', default: '4' },
    'kill-every': { type: 'string' },
    reorgs: { type: 'boolean', default: false },
    'reorg-every': { type: 'string', default: '3' },
    confirmations: { type: 'string', default: '0' },
    'database-url': { type: 'string' },
  },
});
const databaseUrl = values['database-url'] ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
const store = (values.store ?? (databaseUrl ? 'postgres' : 'sqlite')) as 'sqlite' | 'postgres';
if (store !== 'sqlite' && store !== 'postgres') throw new Error(`--store: sqlite or postgres, not ${store}`);
if (store === 'postgres' && !databaseUrl) throw new Error('--store postgres needs --database-url (or TEST_DATABASE_URL)');
const instances = Number(values.instances ?? (store === 'postgres' ? 3 : 1));
if (store === 'sqlite' && instances > 1) console.log('note: several instances on one SQLite file share its write lock; PostgreSQL is the store for many instances');

const report = await runChaos({
  durationSeconds: Number(values.duration),
  seed: Number(values.seed),
  instances,
  store,
  ...(databaseUrl ? { databaseUrl } : {}),
  workers: Number(values.workers),
  killEverySeconds: Number(values['kill-every'] ?? (values.reorgs ? 0 : 6)),
  ...(values.reorgs ? { reorgEverySeconds: Number(values['reorg-every']) } : {}),
  confirmations: values.confirmations,
  log: (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
});
console.log(formatReport(report));
process.exit(reportFailed(report) ? 1 : 0);
