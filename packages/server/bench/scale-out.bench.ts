/**
 * Scale-out on PostgreSQL: B3 polls per second and A7 cards per second with the load on 1 and on 3
 * `wallet-service serve` processes over one schema and one chain node. Run:
 * `TEST_DATABASE_URL=postgres://… npm run bench -- scale-out` (default postgres://postgres@127.0.0.1:5432/test).
 *
 * Three instances are started (the sources through tsx, or the compiled build with
 * WALLET_TEST_COMPILED=1) on a shared installation (testing/shared-installation.ts: a fresh schema,
 * an automining anvil). Setup (an approved partner, KEYS prepared App2App requests) is done from
 * this process before they start. Then, for each workload, slices of SLICE_SECONDS alternate
 * between the load sent to instance 1 alone and the load spread over all three (which goes first
 * alternating), ROUNDS times; the two idle instances of a 1-instance slice run but get no calls.
 * - B3: CONNECTIONS keep-alive connections from a worker thread, cycling over the keys, each
 *   answer checked (status 200, its key, `prepared`).
 * - A7: calls of 100 fresh addresses, A7_CONCURRENCY in flight, each answering once mined.
 * Prints each slice pair's rates and ratio with the load average, then the median 3-to-1 ratio with
 * min and max against the target (B3 at least 2x; A7 reported: one node mines every instance's
 * transactions). Asserts nothing but the answers.
 *
 * Beside each rate, the CPU time the instances that got the load used per 1,000 answers (Linux:
 * their processes' user and system time from /proc). On a machine with fewer cores than the
 * instances, the load generator and the database need, the 3-to-1 ratio measures the machine; the
 * CPU per answer shows whether spreading the load costs the service more work per answer, which is
 * what would keep three instances from answering three times as much where each has a core.
 * Under the full load that cost includes switching between more busy processes than cores, so B3
 * runs paced too: each instance gets the same polls a second (PACED_SHARE of one instance's full
 * rate), one instance that rate and three instances three times it, well under what the machine
 * answers. The CPU per answer then differs only by what the instances cost one another (the shared
 * store, its announcements).
 *
 * Env: SCALE_BENCH_ROUNDS (3), SCALE_BENCH_SLICE_SECONDS (10), SCALE_BENCH_KEYS (200),
 * SCALE_BENCH_CONNECTIONS (96), SCALE_BENCH_A7_CONCURRENCY (9), SCALE_BENCH_PACED_SHARE (0.15).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { parseEther, type Address } from 'viem';
import { loadNow, medianMinMax } from './bench-support.ts';

process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';

const ROUNDS = Number(process.env.SCALE_BENCH_ROUNDS ?? 3);
const SLICE_SECONDS = Number(process.env.SCALE_BENCH_SLICE_SECONDS ?? 10);
const KEYS = Number(process.env.SCALE_BENCH_KEYS ?? 200);
const CONNECTIONS = Number(process.env.SCALE_BENCH_CONNECTIONS ?? 96);
const A7_CONCURRENCY = Number(process.env.SCALE_BENCH_A7_CONCURRENCY ?? 9);
/** The paced B3 slices send each instance this share of one instance's measured B3 rate. */
const PACED_SHARE = Number(process.env.SCALE_BENCH_PACED_SHARE ?? 0.15);
const INSTANCES = 3;
/** The target (37): three instances poll at least twice what one does. */
const TARGET_B3 = 2;

/** Plain JavaScript, so the worker needs no TypeScript loader: GETs spread over the ports until the time is up. */
const LOAD_WORKER = `
const { Agent, request } = require('node:http');
const { parentPort, workerData: job } = require('node:worker_threads');
const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
let answered = 0, wrong = 0, firstWrong = null;
const started = performance.now();
const end = started + job.durationMs;
const once = (port, key) => new Promise((resolve) => {
  const call = request({ host: '127.0.0.1', port, path: '/v2/a2a/result?request_key=' + key, agent }, (response) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk) => { text += chunk; });
    response.on('end', () => {
      answered += 1;
      try {
        const body = JSON.parse(text);
        if (response.statusCode !== 200 || body.request_key !== key || body.status !== 'prepared') { wrong += 1; firstWrong ??= text; }
      } catch { wrong += 1; firstWrong ??= text; }
      resolve();
    });
  });
  call.on('error', (error) => { wrong += 1; firstWrong ??= String(error); resolve(); });
  call.end();
});
// Paced (job.perSecond): the n-th poll is sent no sooner than n / perSecond seconds in.
const due = (next) => job.perSecond ? started + (next * 1000) / job.perSecond - performance.now() : 0;
Promise.all(Array.from({ length: job.connections }, async (_, connection) => {
  const port = job.ports[connection % job.ports.length];
  for (let next = connection; performance.now() < end; next += job.connections) {
    const wait = due(next);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (performance.now() >= end) break;
    await once(port, job.keys[next % job.keys.length]);
  }
})).then(() => {
  agent.destroy();
  parentPort.postMessage({ answered, wrong, firstWrong, elapsedMs: performance.now() - started });
});
`;

/** B3 polls per second over `ports` for `seconds`, as many as answered or `perSecond` at most. */
async function pollB3(ports: number[], keys: string[], seconds: number, perSecond?: number): Promise<number> {
  const result = await new Promise<{ answered: number; wrong: number; firstWrong: string | null; elapsedMs: number }>((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, { eval: true, workerData: { ports, keys, connections: CONNECTIONS, durationMs: seconds * 1000, perSecond } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  if (result.wrong > 0) throw new Error(`${result.wrong} wrong B3 answers, first: ${result.firstWrong}`);
  return (result.answered * 1000) / result.elapsedMs;
}

/** Clock ticks per second of /proc's times (USER_HZ). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User and system CPU ms of the processes `roots` and their descendants; undefined where /proc is not there. */
function processTreeCpuMs(roots: number[]): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const pid of entries) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command's closing parenthesis: state, ppid, ... utime is the 12th field, stime the 13th.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(pid), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // Gone meanwhile.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let at: number | undefined = pid, hops = 0; at && hops < 64; at = stats.get(at)?.parent, hops++) if (roots.includes(at)) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, stat] of stats) if (inTree(pid)) ticks += stat.ticks;
  return (ticks * 1000) / CLOCK_TICKS;
}

async function main(): Promise<void> {
  process.env.WALLET_TEST_STORE = 'postgres';
  const { startTestChain } = await import('../src/testing/chain-node.ts');
  const { createSharedInstallation } = await import('../src/testing/shared-installation.ts');
  const { startService, stopService, partnerCall } = await import('../src/testing/service-process.ts');
  const { buildApprovedPartner } = await import('../src/testing/factories.ts');
  const { fundAccount } = await import('../src/testing/race-target.ts');
  const { setBalance } = await import('../src/a2a/testing/support.ts');
  const { prepareRequest } = await import('../src/a2a/prepare/commands.ts');
  const { buildAddresses, buildMintPayload } = await import('../src/cards/testing/card-factories.ts');
  const { RATE_LIMIT_GROUPS } = await import('../src/http/rate-limit/limits.ts');

  const chain = await startTestChain();
  const children: ChildProcess[] = [];
  const installation = await createSharedInstallation({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    store: 'postgres',
    configFile: {
      trustProxy: true,
      http: { rateLimits: Object.fromEntries(RATE_LIMIT_GROUPS.map((group) => [group, { max: 1_000_000_000 }])) },
      partnerApi: { rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 } },
    },
  });
  const services = await installation.open();
  try {
    await services.outbox.start();
    await fundAccount(services, services.operator.address);
    const partner = await buildApprovedPartner(services, { mintLimit: 2_000_000_000 });
    await setBalance(services, partner.partner.main_address as Address, parseEther('1000'));
    const keys: string[] = [];
    for (let index = 0; index < KEYS; index++) keys.push((await prepareRequest(services, { bapp: { name: 'Scale Bench' }, type: 'auth' } as never)).request_key);
    await services.outbox.stop();

    const baseUrls: string[] = [];
    for (let index = 0; index < INSTANCES; index++) {
      const { service, baseUrl } = await startService(installation.env, { timeoutMs: 240_000 });
      children.push(service);
      baseUrls.push(baseUrl);
    }
    const ports = baseUrls.map((url) => Number(new URL(url).port));
    const signedIn = await partnerCall(baseUrls[0]!, undefined, 'POST', '/v2/partner/auth', { email: partner.partner.email, password: partner.passwordHash });
    if (signedIn.status !== 200) throw new Error(`A1 answered ${signedIn.status}`);
    const token = signedIn.json.access_token as string;

    /** A7 for SLICE_SECONDS over `urls`: cards minted per second (calls started in the slice, all awaited). */
    const mintA7 = async (urls: string[], seconds: number) => {
      let cards = 0;
      let call = 0;
      const started = performance.now();
      const end = started + seconds * 1000;
      await Promise.all(
        Array.from({ length: A7_CONCURRENCY }, async () => {
          while (performance.now() < end) {
            const url = urls[call++ % urls.length]!;
            const payload = buildMintPayload({ pinHash: partner.pinHash, contractAddress: partner.contractAddress }, { to_address: buildAddresses(100) });
            const answer = await partnerCall(url, token, 'POST', '/v2/wallet/mint', payload);
            if (answer.status !== 200 || answer.json.minted_count !== 100) throw new Error(`A7 answered ${answer.status}: ${JSON.stringify(answer.json)}`);
            cards += 100;
          }
        }),
      );
      return (cards * 1000) / (performance.now() - started);
    };

    console.log(
      `scale-out bench: PostgreSQL, ${INSTANCES} serve processes over one schema, one automining anvil; slices of ${SLICE_SECONDS} s alternating 1 and ${INSTANCES} instances, ${ROUNDS} pairs a workload; ` +
        `B3: ${CONNECTIONS} connections over ${KEYS} prepared requests; A7: 100 cards a call, ${A7_CONCURRENCY} in flight; load average before ${loadNow()}`,
    );
    /** Polls a second each instance gets in the paced slices, set from the B3 slices: PACED_SHARE of one instance's median rate. */
    let pacedPerInstance = 0;
    const workloads = [
      { name: 'B3 polls/s', run: (count: number, seconds: number) => pollB3(ports.slice(0, count), keys, seconds), target: TARGET_B3 },
      { name: 'B3 polls/s paced', paced: true, run: (count: number, seconds: number) => pollB3(ports.slice(0, count), keys, seconds, pacedPerInstance * count), target: undefined },
      { name: 'A7 cards/s', run: (count: number, seconds: number) => mintA7(baseUrls.slice(0, count), seconds), target: undefined },
    ];
    const pids = children.map((child) => child.pid!);
    /**
     * A slice's rate, and the CPU ms per 1,000 of what the rate counts (polls, cards) of the `count`
     * instances that got the load (each with its own background work; the idle ones are not counted).
     */
    const measured = async (count: number, run: () => Promise<number>, seconds: number) => {
      const answering = pids.slice(0, count);
      const cpuBefore = processTreeCpuMs(answering);
      const rate = await run();
      const cpuAfter = processTreeCpuMs(answering);
      const cpuPerThousand = cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / (rate * seconds);
      return { rate, cpuPerThousand };
    };
    const cpuText = (cpu: number | undefined) => (cpu === undefined ? 'CPU n/a' : `CPU ${cpu.toFixed(0)} ms`);
    for (const workload of workloads) {
      await workload.run(INSTANCES, 3);
      await workload.run(1, 3);
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      const oneRates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [1, INSTANCES] : [INSTANCES, 1];
        const slices: Record<number, { rate: number; cpuPerThousand: number | undefined }> = {};
        for (const count of order) slices[count] = await measured(count, () => workload.run(count, SLICE_SECONDS), SLICE_SECONDS);
        const [one, all] = [slices[1]!, slices[INSTANCES]!];
        ratios.push(all.rate / one.rate);
        oneRates.push(one.rate);
        if (one.cpuPerThousand !== undefined && all.cpuPerThousand !== undefined) cpuRatios.push(all.cpuPerThousand / one.cpuPerThousand);
        console.log(
          `  ${workload.name} pair ${round + 1} (${order[0]} first): 1 instance ${one.rate.toFixed(0)} (${cpuText(one.cpuPerThousand)} per 1,000), ` +
            `${INSTANCES} instances ${all.rate.toFixed(0)} (${cpuText(all.cpuPerThousand)} per 1,000); ratio ${ratios.at(-1)!.toFixed(2)}; load ${loadNow()}`,
        );
      }
      if (workload.target === TARGET_B3) pacedPerInstance = Math.max(1, Math.round(PACED_SHARE * medianMinMax(oneRates).median));
      const ratio = medianMinMax(ratios);
      const verdict = workload.target === undefined ? 'target: reported' : `target >= ${workload.target}: ${ratio.median >= workload.target ? 'met' : 'NOT met'}`;
      console.log(`  ${workload.name}, ${INSTANCES} to 1 (median of pairs): ${ratio.median.toFixed(2)} (min ${ratio.min.toFixed(2)}, max ${ratio.max.toFixed(2)}); ${verdict}; load ${loadNow()}`);
      if (cpuRatios.length > 0 && 'paced' in workload) {
        // The same polls a second an instance on both sides, well under what the machine answers: what
        // the instances cost one another per answer, without more busy processes than cores.
        const cpu = medianMinMax(cpuRatios);
        console.log(
          `  ${workload.name} at ${pacedPerInstance} polls/s an instance (${(PACED_SHARE * 100).toFixed(0)}% of one instance's full rate): the instances' CPU per answer, ${INSTANCES} instances against 1 (median of pairs): ` +
            `${cpu.median.toFixed(2)} (min ${cpu.min.toFixed(2)}, max ${cpu.max.toFixed(2)}); at that cost, ${INSTANCES} instances with a core each would answer about ${(INSTANCES / cpu.median).toFixed(1)}x what one does (not measured here; target ${TARGET_B3}x)`,
        );
      } else if (cpuRatios.length > 0) {
        const cpu = medianMinMax(cpuRatios);
        console.log(
          `  ${workload.name}: the instances' CPU per answer, ${INSTANCES} instances against 1 (median of pairs): ${cpu.median.toFixed(2)} (min ${cpu.min.toFixed(2)}, max ${cpu.max.toFixed(2)}); ` +
            `at that CPU per answer (switching between more busy processes than cores included), ${INSTANCES} instances with a core each would answer ${(INSTANCES / cpu.median).toFixed(1)}x what one does (not measured here)`,
        );
      }
    }
  } finally {
    await Promise.all(children.map((child) => stopService(child)));
    await services.close();
    await installation.remove();
    await chain.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`scale-out bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
