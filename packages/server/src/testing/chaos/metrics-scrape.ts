import type { ChildProcess } from 'node:child_process';
import { METRIC_FAMILIES, parsePrometheusText, type Exposition } from '../../metrics/testing/prometheus-text.ts';

/** What the scrapes of a chaos run saw. */
export interface MetricsSeen {
  /** Scrapes answered and parsed. */
  scrapes: number;
  /** Scrapes that followed an earlier one of the same process: only these can see a value move. */
  pairs: number;
  /** Families never seen with their type in any scrape. */
  missing: string[];
  /** Families whose value changed within one process's life. */
  moving: string[];
  /** Scrapes that answered but did not parse, or answered another status. */
  refused: string[];
}

/**
 * The families chaos traffic must move: requests, JSON-RPC calls, App2App outcomes and the head.
 * The others (PIN lockouts, sign-in throttles, rate-limit refusals, and gauges of work in flight such
 * as the outbox's unmined transactions or lags, which can read the same at every scrape of a slow
 * run: seen at load 17 with four scrapes) need traffic a chaos run does not make; metrics.test.ts
 * moves each of them.
 */
export const MOVED_BY_TRAFFIC = [
  'wallet_http_requests_total',
  'wallet_http_request_duration_seconds',
  'wallet_rpc_requests_total',
  'wallet_rpc_request_duration_seconds',
  'wallet_a2a_requests_total',
  'wallet_chain_head_block',
];

/**
 * A value moves only between two scrapes of one process, and a kill ends a process a few seconds
 * after it has started on a busy machine: scrape often, wait long for a slow answer, and once more
 * after the load, so every run gets pairs.
 */
const SCRAPE_EVERY_MS = 1_000;
const SCRAPE_TIMEOUT_MS = 15_000;

/**
 * Scrapes `GET /metrics` of every running instance every second until `until`, and once after it,
 * as Prometheus would, and parses each answer strictly. A value counts as moving when two scrapes of
 * one process (a killed instance starts its counters again) differ.
 */
export async function scrapeMetricsDuring(
  instances: ReadonlyArray<{ child: ChildProcess | undefined; baseUrl: string | undefined }>,
  until: number,
): Promise<MetricsSeen> {
  const typed = new Set<string>();
  const moving = new Set<string>();
  const refused: string[] = [];
  const last = new Map<ChildProcess, Map<string, number>>();
  let scrapes = 0;
  let pairs = 0;
  const expected = new Map(METRIC_FAMILIES);
  for (let final = false; !final; ) {
    final = Date.now() >= until;
    await Promise.all(
      instances.map(async ({ child, baseUrl }) => {
        if (!child || !baseUrl) return;
        let exposition: Exposition;
        try {
          const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
          const text = await response.text();
          if (response.status !== 200) {
            refused.push(`${baseUrl}: ${response.status}`);
            return;
          }
          exposition = parsePrometheusText(text);
        } catch (error) {
          // A process killed mid-scrape answers nothing; only what it did answer must parse.
          if ((error as Error).message.startsWith('line ')) refused.push(`${baseUrl}: ${(error as Error).message}`);
          return;
        }
        scrapes += 1;
        for (const [name, type] of exposition.types) if (expected.get(name) === type) typed.add(name);
        const values = new Map<string, number>();
        for (const sample of exposition.samples) {
          values.set(`${sample.name}${JSON.stringify(sample.labels)}`, sample.value);
        }
        const before = last.get(child);
        if (before) {
          pairs += 1;
          for (const [key, value] of values) {
            if (before.has(key) && before.get(key) !== value) moving.add(familyOf(key));
          }
        }
        last.set(child, values);
      }),
    );
    if (!final) await new Promise((resolve) => setTimeout(resolve, SCRAPE_EVERY_MS));
  }
  return {
    scrapes,
    pairs,
    missing: METRIC_FAMILIES.map(([name]) => name).filter((name) => !typed.has(name)),
    moving: METRIC_FAMILIES.map(([name]) => name).filter((name) => moving.has(name)),
    refused,
  };
}

/** The family of a sample key: a histogram's _bucket, _sum and _count belong to it. */
function familyOf(key: string): string {
  const name = key.slice(0, key.indexOf('{'));
  return name.replace(/_(bucket|sum|count)$/, '');
}
