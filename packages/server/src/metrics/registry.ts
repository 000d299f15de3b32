import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: from a cached read to a long-poll's whole wait. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const RPC_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15];

/** What the HTTP app reports of each answered request. */
export interface HttpRecorder {
  /** `route` is the route's pattern (`/v2/a2a/result`), never the raw URL; `unmatched` for none. */
  requestAnswered(method: string, route: string, status: number, seconds: number): void;
}

/** What a chain's JSON-RPC transport reports of each call. */
export interface RpcRecorder {
  rpcCall(chain: string, method: string, seconds: number, failed: boolean): void;
}

/** Refusals that guard secrets and capacity. */
export interface SecurityRecorder {
  /** A fifth wrong PIN in a row locked a key. */
  pinLocked(): void;
  /** A sign-in was refused because its address or account is waiting out the wrong-password back-off. */
  signInThrottled(): void;
  /** A partner API call was refused by the per-address rate limit. */
  rateLimitRefused(): void;
}

/** App2App requests by type and how each step ended (prepared, refused, completed, error, canceled). */
export interface A2aRecorder {
  a2aRequest(type: string, outcome: string): void;
}

/** Values read at each scrape (outbox, chains, card index); see collectors.ts. */
export interface ScrapeGauges {
  outboxTransactions: Gauge<'chain' | 'state'>;
  outboxOldestPendingAge: Gauge<'chain'>;
  outboxWindowWaiting: Gauge<'chain'>;
  nonceLag: Gauge<'chain' | 'account'>;
  chainHead: Gauge<'chain'>;
  receiptLag: Gauge<'chain'>;
  cardIndexLag: Gauge<'chain'>;
}

/**
 * The service's Prometheus registry (one per process, made by the composition root) and the narrow
 * recorders handed down to the parts that report to it. Values that need the store or the chains
 * are read on scrape by the collectors added with `onScrape`.
 */
export class ServiceMetrics implements HttpRecorder, RpcRecorder, SecurityRecorder, A2aRecorder {
  readonly registry = new Registry();
  readonly #collectors: Array<() => Promise<void>> = [];

  /**
   * HTTP answers are counted in plain numbers per series (method, route pattern, status) and handed
   * to prom-client at scrape: its counter and histogram hash their labels at every call, on the path
   * of every request. Few series (route patterns, not URLs), so never pruned.
   */
  readonly #httpSeries = new Map<string, { labels: { method: string; route: string; status: string }; unscraped: number; durations: DurationSeries }>();
  readonly #httpDurations = new Durations('wallet_http_request_duration_seconds', 'Time to answer an HTTP request (long-polls included), by method and route pattern', HTTP_BUCKETS);
  readonly #httpRequests: Counter<'method' | 'route' | 'status'> = new Counter({
    name: 'wallet_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
    collect: () => {
      for (const series of this.#httpSeries.values()) {
        if (series.unscraped === 0) continue;
        this.#httpRequests.inc(series.labels, series.unscraped);
        series.unscraped = 0;
      }
    },
  });
  readonly #rpcCalls = new Counter({ name: 'wallet_rpc_requests_total', help: 'JSON-RPC calls to the chain nodes, by chain and method', labelNames: ['chain', 'method'], registers: [this.registry] });
  readonly #rpcErrors = new Counter({ name: 'wallet_rpc_errors_total', help: 'JSON-RPC calls that failed (transport or node error), by chain and method', labelNames: ['chain', 'method'], registers: [this.registry] });
  readonly #rpcDuration = new Histogram({ name: 'wallet_rpc_request_duration_seconds', help: 'JSON-RPC call latency, by chain', labelNames: ['chain'], buckets: RPC_BUCKETS, registers: [this.registry] });
  readonly #pinLockouts = new Counter({ name: 'wallet_pin_lockouts_total', help: 'Keys locked by a fifth wrong PIN in a row', registers: [this.registry] });
  readonly #signInThrottles = new Counter({ name: 'wallet_sign_in_throttled_total', help: 'Sign-ins refused during the wrong-password back-off', registers: [this.registry] });
  readonly #rateLimitRefusals = new Counter({ name: 'wallet_rate_limit_refusals_total', help: 'Partner API calls refused by the per-address rate limit', registers: [this.registry] });
  readonly #a2aRequests = new Counter({ name: 'wallet_a2a_requests_total', help: 'App2App requests by type and outcome of each step', labelNames: ['type', 'outcome'], registers: [this.registry] });

  readonly gauges: ScrapeGauges = {
    outboxTransactions: new Gauge({ name: 'wallet_outbox_transactions', help: 'Outbox transactions by chain and state: unsent (stored, never broadcast), sent (broadcast, no receipt yet), unconfirmed (mined, block not confirmed yet), failed', labelNames: ['chain', 'state'], registers: [this.registry] }),
    outboxOldestPendingAge: new Gauge({ name: 'wallet_outbox_oldest_pending_age_seconds', help: 'Age of the oldest outbox transaction without a receipt, by chain (0 when none)', labelNames: ['chain'], registers: [this.registry] }),
    outboxWindowWaiting: new Gauge({ name: 'wallet_outbox_window_waiting', help: 'Outbox transactions this process holds, stored, until their account has room in its send window (outbox.sendWindow), by chain', labelNames: ['chain'], registers: [this.registry] }),
    nonceLag: new Gauge({ name: 'wallet_outbox_nonce_lag', help: 'Nonces allocated by the outbox that the chain has not mined yet, per sending account with pending transactions', labelNames: ['chain', 'account'], registers: [this.registry] }),
    chainHead: new Gauge({ name: 'wallet_chain_head_block', help: 'Latest block number of each chain', labelNames: ['chain'], registers: [this.registry] }),
    receiptLag: new Gauge({ name: 'wallet_receipt_lag_blocks', help: 'Blocks between the chain head and the oldest transaction mined on the chain whose receipt the outbox has not recorded yet (0 when none)', labelNames: ['chain'], registers: [this.registry] }),
    cardIndexLag: new Gauge({ name: 'wallet_card_index_lag_blocks', help: 'Blocks between the chain head and the card index position furthest behind, by chain', labelNames: ['chain'], registers: [this.registry] }),
  };

  constructor(options: { processMetrics?: boolean } = {}) {
    this.registry.registerMetric(this.#httpDurations as never);
    // Process metrics (CPU, memory, event-loop lag) under their usual names.
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.#httpSeries.get(key);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, unscraped: 0, durations: this.#httpDurations.series(method, route) };
      this.#httpSeries.set(key, series);
    }
    series.unscraped += 1;
    series.durations.observe(seconds);
  }

  rpcCall(chain: string, method: string, seconds: number, failed: boolean): void {
    this.#rpcCalls.inc({ chain, method });
    if (failed) this.#rpcErrors.inc({ chain, method });
    this.#rpcDuration.observe({ chain }, seconds);
  }

  pinLocked(): void {
    this.#pinLockouts.inc();
  }

  signInThrottled(): void {
    this.#signInThrottles.inc();
  }

  rateLimitRefused(): void {
    this.#rateLimitRefusals.inc();
  }

  a2aRequest(type: string, outcome: string): void {
    this.#a2aRequests.inc({ type, outcome });
  }

  /** Adds work run before each scrape (reading the store and the chains into the gauges). */
  onScrape(collect: () => Promise<void>): void {
    this.#collectors.push(collect);
  }

  /** The Prometheus text exposition, after every collector ran (a failed one leaves its gauges as they were). */
  async text(): Promise<{ contentType: string; body: string }> {
    await Promise.allSettled(this.#collectors.map((collect) => collect()));
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** One series of Durations: its buckets (not cumulative), sum and count. */
class DurationSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    readonly bounds: readonly number[],
  ) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    const bucket = this.bounds.findIndex((bound) => value <= bound);
    if (bucket >= 0) this.counts[bucket]! += 1;
  }
}

/**
 * A histogram by method and route pattern whose series are plain numbers, registered as a metric of
 * the registry and exported in prom-client's form: the text of a prom-client Histogram, without
 * hashing the labels at every observation.
 */
class Durations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, DurationSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  series(method: string, route: string): DurationSeries {
    const key = `${method} ${route}`;
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = new DurationSeries({ method, route }, this.bounds)));
    return series;
  }

  async get() {
    const values = [...this.#series.values()].flatMap((series) => {
      let cumulative = 0;
      return [
        ...series.bounds.map((bound, index) => {
          cumulative += series.counts[index]!;
          return { labels: { le: bound }, sharedLabels: series.labels, value: cumulative, metricName: `${this.name}_bucket` };
        }),
        { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_bucket` },
        { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` },
      ];
    });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.#series.clear();
  }
}
