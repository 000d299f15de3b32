import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient, detectEnvironment, type ClientOptions, type Environment } from './index.ts';
import { BASE, expectOk, fakeFetch, KEY, type FakeAnswer } from './testing/fake-fetch.ts';

const WEB = 'https://wallet.example';
const UNIVERSAL = `${WEB}/?target=/a2a?request_key=${KEY}`;
const SERVER_LINKS = {
  request_key: KEY,
  region: 'default',
  universal_link: UNIVERSAL,
  ios_scheme_link: `walletapp://wallet/open?url=${UNIVERSAL}`,
  android_intent_link: `intent://wallet/open?url=${UNIVERSAL}#Intent;scheme=walletapp;package=com.example.wallet;end`,
  qr_text: UNIVERSAL,
  qr_png_url: 'http://public.example/v2/a2a/qr?…',
  qr_svg_url: 'http://public.example/v2/a2a/qr?…',
};
const EXPECTED_LINKS = {
  request_key: KEY,
  url: UNIVERSAL,
  universal_link: UNIVERSAL,
  ios_scheme_link: SERVER_LINKS.ios_scheme_link,
  android_intent_link: SERVER_LINKS.android_intent_link,
  qr_png_url: `${BASE}/v2/a2a/qr?request_key=${KEY}&format=png`,
  qr_svg_url: `${BASE}/v2/a2a/qr?request_key=${KEY}&format=svg`,
};

function client(options: Omit<ClientOptions, 'fetch'>, ...answers: FakeAnswer[]) {
  const fake = fakeFetch(...answers);
  const opened: string[] = [];
  const a2a = createClient({ baseUrl: BASE, storage: null, openUrl: (url) => opened.push(url), ...options, fetch: fake.fetch });
  return { fake, a2a, opened };
}

describe('getRequestUrl', () => {
  test('asks the service for the links; the QR images are at the base URL', async () => {
    const { fake, a2a } = client({}, { body: SERVER_LINKS });
    assert.deepEqual(await a2a.getRequestUrl(KEY), EXPECTED_LINKS);
    assert.deepEqual(fake.paths(), [`/v2/a2a/links?request_key=${KEY}`]);
  });

  test('the global region asks {a2a_url_global} for its links', async () => {
    const { fake, a2a } = client({ region: 'global', globalBaseUrl: 'https://global.example/' }, { body: SERVER_LINKS });
    const links = await a2a.getRequestUrl(KEY);
    assert.equal(a2a.baseUrl, 'https://global.example');
    assert.deepEqual(fake.calls.map((call) => call.url), [`https://global.example/v2/a2a/links?request_key=${KEY}&region=global`]);
    assert.equal('qr_png_url' in links && links.qr_png_url, `https://global.example/v2/a2a/qr?request_key=${KEY}&region=global&format=png`);
  });

  test('an unknown or expired key resolves to the error', async () => {
    const { a2a } = client({}, { status: 400, body: { code: 6000, err: 'request key does not exist' } });
    assert.deepEqual(await a2a.getRequestUrl(KEY), { code: 6000, err: 'request key does not exist' });
  });

  test('with link settings the links are built without a request, in every form of the table', async () => {
    const { fake, a2a } = client({ links: { webUrl: `${WEB}/` } });
    assert.deepEqual(await a2a.getRequestUrl(KEY), EXPECTED_LINKS);
    const global = client({ region: 'global', links: { webUrl: 'https://global-wallet.example', appHost: 'w' } }).a2a;
    const links = await global.getRequestUrl(KEY);
    assert.equal('url' in links && links.android_intent_link,
      `intent://w/open?url=https://global-wallet.example/?target=/a2a?request_key=${KEY}#Intent;scheme=walletapp-global;package=com.example.wallet.global;end`);
    assert.equal(fake.calls.length, 0);
  });
});

describe('request', () => {
  test('on a computer: calls onUnsupportedEnvironment with the key and opens nothing', async () => {
    const { fake, a2a, opened } = client({ environment: 'other' });
    const called: string[] = [];
    assert.deepEqual(await a2a.request(KEY, (key) => void called.push(key)), { request_key: KEY, environment: 'other', opened: false });
    assert.deepEqual(called, [KEY]);
    assert.deepEqual(opened, []);
    assert.equal(fake.calls.length, 0);
    assert.equal(expectOk(await a2a.request(KEY)).opened, false, 'the callback is optional');
  });

  test('onUnsupportedEnvironment may be async; request waits for it', async () => {
    const { a2a } = client({ environment: 'other' });
    let done = false;
    await a2a.request(KEY, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      done = true;
    });
    assert.ok(done);
  });

  for (const [environment, schemeLinks, expected] of [
    ['ios', false, UNIVERSAL],
    ['android', false, UNIVERSAL],
    ['ios', true, SERVER_LINKS.ios_scheme_link],
    ['android', true, SERVER_LINKS.android_intent_link],
  ] as Array<[Environment, boolean, string]>) {
    test(`on ${environment}${schemeLinks ? ' with schemeLinks' : ''}: opens ${schemeLinks ? 'the older scheme form' : 'the universal link'}`, async () => {
      const { a2a, opened } = client({ environment, schemeLinks }, { body: SERVER_LINKS });
      let called = false;
      const outcome = await a2a.request(KEY, () => void (called = true));
      assert.deepEqual(outcome, { request_key: KEY, environment, opened: true, url: expected });
      assert.deepEqual(opened, [expected]);
      assert.equal(called, false);
    });
  }

  test('on a phone, a key the service refuses opens nothing and resolves to the error', async () => {
    const { a2a, opened } = client({ environment: 'android' }, { status: 400, body: { code: 6000, err: 'request key does not exist' } });
    assert.deepEqual(await a2a.request(KEY), { code: 6000, err: 'request key does not exist' });
    assert.deepEqual(opened, []);
  });

  test('on a phone without a page to navigate, openUrl is required', async () => {
    const fake = fakeFetch({ body: SERVER_LINKS });
    const a2a = createClient({ baseUrl: BASE, storage: null, environment: 'ios', fetch: fake.fetch });
    await assert.rejects(a2a.request(KEY), { name: 'TypeError', message: /openUrl/ });
  });

  test('the environment comes from navigator when not given', async () => {
    const { a2a } = client({});
    assert.equal(expectOk(await a2a.request(KEY)).environment, detectEnvironment((globalThis as { navigator?: { userAgent?: string } }).navigator));
  });
});

describe('detectEnvironment', () => {
  const cases: Array<[string, number, Environment]> = [
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148', 5, 'ios'],
    ['Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148', 5, 'ios'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.4 Safari/605.1.15', 5, 'ios'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.4 Safari/605.1.15', 0, 'other'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36', 5, 'android'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36', 0, 'other'],
    ['Node.js/22', 0, 'other'],
  ];
  for (const [userAgent, maxTouchPoints, expected] of cases) {
    test(`${expected}: ${userAgent.slice(0, 60)}`, () => assert.equal(detectEnvironment({ userAgent, maxTouchPoints }), expected));
  }
  test('no navigator is other', () => assert.equal(detectEnvironment(undefined), 'other'));
});
