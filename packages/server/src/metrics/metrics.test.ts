import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { approveAs, BAPP, openAs, prepareKey, signedInMember } from '../a2a/testing/support.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { readFileSync } from 'node:fs';
import { Counter, Histogram, Registry } from 'prom-client';
import { ServiceMetrics } from './registry.ts';
import { has, METRIC_FAMILIES, parsePrometheusText, sumOf, type Exposition } from './testing/prometheus-text.ts';

const RATE_LIMIT = 30;
let t: TestApp;

before(async () => {
  t = await openTestApp({
    partnerApi: { rateLimit: { max: RATE_LIMIT, timeWindowMs: 60_000 }, signInThrottle: { addressFreeFailures: 2, accountFreeFailures: 2 } },
  });
});
after(async () => {
  await t?.cleanup();
});

async function scrape(headers: Record<string, string> = {}): Promise<Exposition> {
  const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(response.body);
}

const rpc = (method: string, params: unknown[] = []) => t.services.chains.get('main').client.request({ method: method as never, params: params as never });

test('a scrape parses, and each metric is present and moves with traffic (mint, App2App, wrong PINs, throttles, rate limits, a stalled outbox)', async () => {
  const first = await scrape();
  for (const [name, type] of METRIC_FAMILIES) {
    assert.equal(first.types.get(name), type, `${name} is a ${type}`);
  }
  assert.ok(has(first, 'wallet_chain_head_block', { chain: 'main' }));
  assert.equal(sumOf(first, 'wallet_outbox_transactions', { chain: 'main', state: 'sent' }), 0);

  // A partner signs in (A1) and mints (A7); a member approves a send_coin; another request gets five wrong PINs.
  const partner = await signedInPartner(t.app, t.services);
  await mintOk(t.app, partner.token, buildMintPayload(partner));
  const member = await signedInMember(t.app, t.services, { coins: '2' });
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const sendKey = await prepareKey(t.app, { bapp: BAPP, type: 'send_coin', transaction: { from: member.address, to: recipient, amount: '0.5' } });
  assert.equal((await openAs(t.app, member.token, sendKey)).statusCode, 200);
  const approved = await approveAs(t.app, member.token, sendKey, member.pin);
  assert.equal(approved.statusCode, 200, approved.body);
  const refusedPrepare = await t.app.inject({ method: 'POST', url: '/v2/a2a/prepare', payload: { bapp: BAPP, type: 'send_coin', transaction: { to: 'nowhere' } } });
  assert.equal(refusedPrepare.statusCode, 400);
  const lockKey = await prepareKey(t.app, { bapp: BAPP, type: 'sign_message', message: { value: 'hello' } });
  assert.equal((await openAs(t.app, member.token, lockKey)).statusCode, 200);
  const wrongPins = [];
  for (let attempt = 0; attempt < 5; attempt++) wrongPins.push((await approveAs(t.app, member.token, lockKey, '000000')).json().code);
  assert.deepEqual(wrongPins, [4006, 4006, 4006, 4006, 403], 'the fifth wrong PIN locks the key');
  // Wrong passwords from one address until the back-off refuses it.
  const throttled = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    const response = await t.app.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email: partner.partner.email, password: sha256Hex('wrong') }, remoteAddress: '10.1.1.1' });
    throttled.push(response.json().code);
  }
  assert.ok(throttled.includes(4008), `back-off reached: ${throttled.join(',')}`);
  // More partner API calls from one address than the rate limit allows.
  let limited = 0;
  for (let call = 0; call <= RATE_LIMIT; call++) {
    const response = await partnerCall(t.app, partner.token, 'GET', '/v2/wallet/mint/count');
    if (response.statusCode === 429) limited++;
  }
  assert.ok(limited >= 1);
  await rpc('eth_noSuchMethod').catch(() => undefined);

  const second = await scrape();
  const moved = (name: string, labels: Record<string, string> = {}) => sumOf(second, name, labels) - sumOf(first, name, labels);
  assert.ok(moved('wallet_http_requests_total', { method: 'POST', route: '/v2/wallet/mint', status: '200' }) >= 1);
  assert.ok(moved('wallet_http_requests_total', { method: 'GET', route: '/v2/wallet/mint/count', status: '429' }) >= limited);
  assert.ok(moved('wallet_http_requests_total', { route: '/v2/wallet-app/a2a/requests/:request_key/approve' }) >= 6, 'route patterns, not URLs');
  assert.ok(!second.samples.some((sample) => sample.labels.route?.includes(sendKey)), 'no raw URL becomes a label');
  assert.ok(moved('wallet_http_request_duration_seconds_count', { route: '/v2/a2a/prepare' }) >= 3);
  assert.ok(moved('wallet_rpc_requests_total', { chain: 'main', method: 'eth_sendRawTransaction' }) >= 2);
  assert.ok(moved('wallet_rpc_errors_total', { chain: 'main', method: 'eth_noSuchMethod' }) >= 1);
  assert.ok(moved('wallet_rpc_request_duration_seconds_count', { chain: 'main' }) >= 5);
  assert.equal(moved('wallet_pin_lockouts_total'), 1);
  assert.ok(moved('wallet_sign_in_throttled_total') >= 1);
  assert.equal(moved('wallet_rate_limit_refusals_total'), limited);
  assert.equal(moved('wallet_a2a_requests_total', { type: 'send_coin', outcome: 'prepared' }), 1);
  assert.equal(moved('wallet_a2a_requests_total', { type: 'send_coin', outcome: 'refused' }), 1);
  assert.equal(moved('wallet_a2a_requests_total', { type: 'send_coin', outcome: 'completed' }), 1);
  assert.equal(moved('wallet_a2a_requests_total', { type: 'sign_message', outcome: 'prepared' }), 1);
  assert.ok(moved('wallet_chain_head_block', { chain: 'main' }) >= 3);
  assert.ok(has(second, 'wallet_card_index_lag_blocks', { chain: 'main' }));

  // The card index has a position for the partner's contract, at the head, before it stops: on a
  // busy machine its first pass may not have run yet, and with no position there is no lag to show.
  await t.services.cardIndex.waitUntilIndexed('main', await t.services.chains.get('main').client.getBlockNumber({ cacheTime: 0 }));
  // The outbox stalls: tracking and indexing stopped, the node no longer mines on its own.
  await t.services.outbox.stop();
  await t.services.cardIndex.stop();
  await rpc('evm_setAutomine', [false]);
  try {
    const operator = await t.services.operator.signer();
    await t.services.outbox.submit({ idempotencyKey: `metrics:${randomUUID()}`, chain: 'main', signer: operator, to: recipient, data: '0x', value: 1n });
    await t.services.outbox.submit({ idempotencyKey: `metrics:${randomUUID()}`, chain: 'main', signer: operator, to: recipient, data: '0x', value: 2n });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const stalled = await scrape();
    assert.equal(sumOf(stalled, 'wallet_outbox_transactions', { chain: 'main', state: 'unsent' }) + sumOf(stalled, 'wallet_outbox_transactions', { chain: 'main', state: 'sent' }), 2);
    assert.ok(sumOf(stalled, 'wallet_outbox_oldest_pending_age_seconds', { chain: 'main' }) >= 1);
    assert.equal(sumOf(stalled, 'wallet_outbox_nonce_lag', { chain: 'main', account: operator.address.toLowerCase() }), 2);
    assert.equal(sumOf(stalled, 'wallet_receipt_lag_blocks', { chain: 'main' }), 0, 'not mined yet: no receipt to record');

    // Mined, then three more blocks, with nobody recording receipts or indexing.
    for (let block = 0; block < 4; block++) await rpc('evm_mine');
    const behind = await scrape();
    assert.equal(sumOf(behind, 'wallet_receipt_lag_blocks', { chain: 'main' }), 3);
    assert.ok(sumOf(behind, 'wallet_card_index_lag_blocks', { chain: 'main' }) >= 4);
    assert.equal(sumOf(behind, 'wallet_outbox_nonce_lag', { chain: 'main', account: operator.address.toLowerCase() }), 0);
  } finally {
    await rpc('evm_setAutomine', [true]);
    await t.services.outbox.start();
    t.services.cardIndex.start();
  }
});

test('/metrics behind a token answers 401 with the registry\'s 4003 without it and 4001 with another', async () => {
  const guarded = await openTestApp({ metrics: { token: 'a-metrics-token-of-some-length' } });
  try {
    const missing = await guarded.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(missing.statusCode, 401);
    assert.deepEqual(missing.json(), { code: 4003, err: 'fail to get authorization in header' });
    const wrong = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } });
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), { code: 4001, err: 'invalid access token' });
    assert.equal(wrong.headers['www-authenticate'], 'Bearer');
    const ok = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer a-metrics-token-of-some-length' } });
    assert.equal(ok.statusCode, 200);
    assert.ok(has(parsePrometheusText(ok.body), 'wallet_chain_head_block', { chain: 'main' }));
  } finally {
    await guarded.cleanup();
  }
});

test('the Grafana dashboard and docs/operations.md name every metric, and the dashboard no other', async () => {
  const names = (await new ServiceMetrics({ processMetrics: false }).registry.getMetricsAsJSON()).map((metric) => metric.name);
  const docs = (file: string) => readFileSync(new URL(`../../../../docs/${file}`, import.meta.url), 'utf8');
  const dashboard = docs('grafana-dashboard.json');
  const operations = docs('operations.md');
  for (const name of names) {
    assert.ok(dashboard.includes(name), `${name} on the dashboard`);
    assert.ok(operations.includes(`\`${name}\``), `${name} in operations.md`);
  }
  const used = new Set([...dashboard.matchAll(/\b(wallet_[a-z_]+?)(?:_bucket|_count|_sum)?\b/g)].map((match) => match[1]!));
  assert.deepEqual([...used].filter((name) => !names.includes(name)), []);
});

test('HTTP answers, counted in plain numbers, export the text prom-client counters and histograms would', async () => {
  const metrics = new ServiceMetrics({ processMetrics: false });
  const registry = new Registry();
  const counter = new Counter({ name: 'wallet_http_requests_total', help: 'h', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
  const histogram = new Histogram({ name: 'wallet_http_request_duration_seconds', help: 'h', labelNames: ['method', 'route'], buckets, registers: [registry] });
  const answers = [['GET', '/v2/a2a/result', 200, 0.003], ['GET', '/v2/a2a/result', 200, 0.02], ['GET', '/v2/a2a/result', 400, 120], ['POST', '/v2/a2a/prepare', 200, 0.05]] as const;
  const lines = async (of: Registry) => (await of.metrics()).split('\n').filter((line) => line.startsWith('wallet_http_')).sort();
  for (const round of [1, 2]) {
    for (const [method, route, status, seconds] of answers) {
      metrics.requestAnswered(method, route, status, seconds * round);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route }, seconds * round);
    }
    // Scraped twice: what was counted before a scrape is not counted again.
    assert.deepEqual(await lines(metrics.registry), await lines(registry));
  }
});

test('the test parser reads values as Prometheus does: NaN and Inf in any case, anything else not a number refused', () => {
  const values = parsePrometheusText('a Nan\nb NaN\nc +Inf\nd -inf\ne 1.5e3\n').samples.map((sample) => sample.value);
  assert.deepEqual(values, [NaN, NaN, Infinity, -Infinity, 1500]);
  assert.throws(() => parsePrometheusText('a abc\n'), /bad value/);
});
