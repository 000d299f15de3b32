/**
 * Where an A7 call's time goes, one call in flight: not a benchmark (run-bench runs `*.bench.ts`
 * only), a measurement to read beside mint-latency's figures. Run:
 * `node --import tsx packages/server/bench/mint-steps.ts` (PostgreSQL: TEST_DATABASE_URL and
 * WALLET_TEST_STORE=postgres, as for the tests).
 *
 * The same service, partner and calls as mint-latency's A7 side. Each statement node-postgres is
 * given and each HTTP request to the node is timed from when it is made until it is answered, by
 * wrapping `pg.Client.prototype.query` and `http.request` in this process. Prints, as medians over
 * MINT_STEPS_CALLS calls: the time between consecutive steps of a call, then each call's time split
 * into waiting on the store (at least one statement unanswered; on SQLite none, its calls block),
 * waiting on the node, and this process's own work (HTTP, checks, signing, making statements), with
 * the number of the store's waits (round trips): see split(). On Linux also, per call, the main
 * thread's time on a core and its time ready to run but waiting for one (/proc's schedstat): on a
 * machine whose cores the store and the node share with the service, part of every step is that wait.
 *
 * Env: MINT_STEPS_CALLS (200), MINT_STEPS_QUIET_MS (30, as mint-latency).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import pg from 'pg';
import { parseEther, type Address } from 'viem';
import { setBalance } from '../src/a2a/testing/support.ts';
import { buildAddresses, buildMintPayload, mintOk } from '../src/cards/testing/card-factories.ts';
import { signInToken } from '../src/partner-api/testing/partner-session.ts';
import { buildApprovedPartner } from '../src/testing/factories.ts';
import { openTestApp } from '../src/testing/test-services.ts';
import { loadNow, medianMinMax } from './bench-support.ts';

const CALLS = Number(process.env.MINT_STEPS_CALLS ?? 200);
const QUIET_MS = Number(process.env.MINT_STEPS_QUIET_MS ?? 30);
const WARM_UP_CALLS = 30;

interface Step {
  at: number;
  kind: 'store' | 'node';
  edge: 'sent' | 'answered';
  what: string;
}

let steps: Step[] | undefined;
let callStart = 0;
const record = (kind: Step['kind'], edge: Step['edge'], what: string) => steps?.push({ at: performance.now() - callStart, kind, edge, what });

/** A statement's first words, enough to tell it. */
const statementLabel = (text: unknown) => String(text).replace(/\s+/g, ' ').replace(/"/g, '').trim().slice(0, 40);

const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string };
  const what = statementLabel(typeof first === 'string' ? first : first?.text);
  record('store', 'sent', what);
  const answer = query.apply(this, args);
  if (answer instanceof Promise) answer.then(() => record('store', 'answered', what), () => record('store', 'answered', what));
  return answer;
};

// The service's node client (chain/rpc-http-client.ts) sends over node:http.
const request = http.request;
(http as { request: typeof http.request }).request = ((...args: Parameters<typeof http.request>) => {
  let what = 'node call';
  const onResponse = args.at(-1) as (response: http.IncomingMessage) => void;
  args[args.length - 1] = ((response: http.IncomingMessage) => {
    response.on('end', () => record('node', 'answered', what));
    onResponse(response);
  }) as never;
  const sent = request(...args);
  const end = sent.end.bind(sent) as (...endArgs: unknown[]) => http.ClientRequest;
  sent.end = ((body: unknown, ...rest: unknown[]) => {
    what = [...String(body).matchAll(/"method":"(\w+)"/g)].map((match) => match[1]).join(',') || what;
    record('node', 'sent', what);
    return end(body, ...rest);
  }) as typeof sent.end;
  return sent;
}) as typeof http.request;
syncBuiltinESMExports();

/** The main thread's time on a core and waiting on a run queue for one, in ms; undefined off Linux. */
function mainThreadSchedule(): { onCore: number; waiting: number } | undefined {
  try {
    const [onCore, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return { onCore: onCore! / 1e6, waiting: waiting! / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * A call's time split by what it was waiting on, and its number of waits on the store. A span that
 * ends with an answer, while something was unanswered, was spent waiting (on the store first); a
 * span that ends with a request was spent making it (this process's own), except the pause before
 * another look for a receipt the node did not have yet, which is the node's.
 */
function split(callSteps: Step[], total: number): { store: number; node: number; own: number; storeWaits: number } {
  const open = { store: 0, node: 0 };
  const spent = { store: 0, node: 0, own: 0 };
  let storeWaits = 0;
  let previous: Step | undefined;
  for (const step of [...callSteps, { at: total, kind: 'node', edge: 'sent', what: 'end' } as Step]) {
    const span = step.at - (previous?.at ?? 0);
    const receiptLookAgain = step.what === 'eth_getTransactionReceipt' && step.edge === 'sent' && previous?.what === step.what;
    if (step.edge === 'answered' && open.store > 0) spent.store += span;
    else if ((step.edge === 'answered' && open.node > 0) || receiptLookAgain) spent.node += span;
    else spent.own += span;
    if (step.edge === 'sent' && step.kind === 'store' && open.store === 0) storeWaits += 1;
    open[step.kind] += step.edge === 'sent' ? 1 : -1;
    previous = step;
  }
  return { ...spent, storeWaits };
}

async function main(): Promise<void> {
  const store = process.env.WALLET_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
  console.log(`mint-steps: ${store} store, managed anvil (automine); ${CALLS} A7 calls of 1 card, one in flight, ${QUIET_MS} ms apart; load average ${loadNow()}`);
  const t = await openTestApp({
    outbox: { pollIntervalMs: 200, rebroadcastAfterMs: 5_000 },
    partnerApi: { rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 } },
  });
  try {
    const built = await buildApprovedPartner(t.services, { mintLimit: 1_000_000_000 });
    const partner = { ...built, token: await signInToken(t.app, built.partner.email, built.passwordHash) };
    await setBalance(t.services, partner.partner.main_address as Address, parseEther('1000'));
    for (let call = 0; call < WARM_UP_CALLS; call++) await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: buildAddresses(1) }));

    const gaps = new Map<string, number[]>();
    const splits = { total: [] as number[], store: [] as number[], node: [] as number[], own: [] as number[], storeWaits: [] as number[], onCore: [] as number[], waitingForCore: [] as number[] };
    for (let call = 0; call < CALLS; call++) {
      const payload = buildMintPayload(partner, { to_address: buildAddresses(1) });
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      const callSteps: Step[] = [];
      steps = callSteps;
      const scheduleBefore = mainThreadSchedule();
      callStart = performance.now();
      await mintOk(t.app, partner.token, payload);
      const total = performance.now() - callStart;
      const scheduleAfter = mainThreadSchedule();
      if (scheduleBefore && scheduleAfter) {
        splits.onCore.push(scheduleAfter.onCore - scheduleBefore.onCore);
        splits.waitingForCore.push(scheduleAfter.waiting - scheduleBefore.waiting);
      }
      steps = undefined;
      let previous = 'call made';
      let previousAt = 0;
      for (const step of [...callSteps, { at: total, kind: 'node', edge: 'answered', what: 'call answered' } as Step]) {
        const label = step.what === 'call answered' ? step.what : `${step.kind} ${step.edge}: ${step.what}`;
        const key = `${previous} -> ${label}`;
        if (!gaps.has(key)) gaps.set(key, []);
        gaps.get(key)!.push(step.at - previousAt);
        previous = label;
        previousAt = step.at;
      }
      const parts = split(callSteps, total);
      splits.total.push(total);
      splits.store.push(parts.store);
      splits.node.push(parts.node);
      splits.own.push(parts.own);
      splits.storeWaits.push(parts.storeWaits);
    }
    console.log('median ms between steps (steps seen in at least half the calls, in the order first seen):');
    for (const [key, values] of gaps) {
      if (values.length >= CALLS / 2) console.log(`  ${medianMinMax(values).median.toFixed(3).padStart(7)}  ${key}${values.length === CALLS ? '' : ` (${values.length} calls)`}`);
    }
    const median = (values: number[]) => medianMinMax(values).median.toFixed(2);
    console.log(
      `a call, medians: ${median(splits.total)} ms in all; waiting on the store ${median(splits.store)} ms in ${median(splits.storeWaits)} waits; ` +
        `waiting on the node ${median(splits.node)} ms; this process's own ${median(splits.own)} ms; load average ${loadNow()}`,
    );
    if (splits.onCore.length > 0) {
      console.log(`the main thread, medians a call: on a core ${median(splits.onCore)} ms, ready but waiting for a core ${median(splits.waitingForCore)} ms`);
    }
  } finally {
    await t.cleanup();
  }
}

await main();
