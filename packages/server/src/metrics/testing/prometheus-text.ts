/** Every metric family the service exports, with its type (docs/operations.md, docs/grafana-dashboard.json). */
export const METRIC_FAMILIES: ReadonlyArray<readonly [name: string, type: 'counter' | 'gauge' | 'histogram']> = [
  ['wallet_http_requests_total', 'counter'],
  ['wallet_http_request_duration_seconds', 'histogram'],
  ['wallet_rpc_requests_total', 'counter'],
  ['wallet_rpc_errors_total', 'counter'],
  ['wallet_rpc_request_duration_seconds', 'histogram'],
  ['wallet_pin_lockouts_total', 'counter'],
  ['wallet_sign_in_throttled_total', 'counter'],
  ['wallet_rate_limit_refusals_total', 'counter'],
  ['wallet_a2a_requests_total', 'counter'],
  ['wallet_outbox_transactions', 'gauge'],
  ['wallet_outbox_oldest_pending_age_seconds', 'gauge'],
  ['wallet_outbox_window_waiting', 'gauge'],
  ['wallet_outbox_nonce_lag', 'gauge'],
  ['wallet_chain_head_block', 'gauge'],
  ['wallet_receipt_lag_blocks', 'gauge'],
  ['wallet_card_index_lag_blocks', 'gauge'],
];

/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** `# TYPE` of each metric family. */
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

/**
 * Parses the Prometheus text format (version 0.0.4) strictly: a line that is not a comment, a
 * blank, or a well-formed sample throws, so a scrape that Prometheus would refuse fails the test.
 */
export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      else if (!/^# HELP \S+ /.test(line) && line.startsWith('# TYPE')) throw new Error(`line ${index + 1}: bad TYPE: ${line}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`line ${index + 1}: not a sample: ${line}`);
    const labels: Record<string, string> = {};
    const labelText = match[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText);
      if (!label) throw new Error(`line ${index + 1}: bad labels: ${line}`);
      labels[label[1]!] = label[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    const raw = match[3]!;
    const value = sampleValue(raw);
    if (value === undefined) throw new Error(`line ${index + 1}: bad value: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { types, samples };
}

/**
 * A sample's value as Prometheus reads it (Go's ParseFloat): NaN and (signed) Inf or Infinity in any
 * case. prom-client writes `Nan` for an event-loop lag with no sample yet.
 */
function sampleValue(raw: string): number | undefined {
  if (/^nan$/i.test(raw)) return NaN;
  const infinity = /^([+-]?)inf(inity)?$/i.exec(raw);
  if (infinity) return infinity[1] === '-' ? -Infinity : Infinity;
  const value = Number(raw);
  return raw.trim() === '' || Number.isNaN(value) ? undefined : value;
}

/** The sum of the samples called `name` whose labels include `labels`. */
export function sumOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((total, sample) => total + sample.value, 0);
}

/** Whether any sample is called `name` (with `labels`). */
export function has(exposition: Exposition, name: string, labels: Record<string, string> = {}): boolean {
  return exposition.samples.some((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}
