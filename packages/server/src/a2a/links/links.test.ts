import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../app.ts';
import { loadConfig } from '../../config/config.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { buildRequestLinks } from './commands.ts';
import { BAPP, prepareKey } from '../testing/support.ts';

const KEY = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

describe('B2 request links', () => {
  test('every shape of the table, for the default and the regional configuration', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        publicUrl: 'https://api.wallet.example',
        a2a: {
          links: { webUrl: 'https://wallet.example', appScheme: 'walletapp', appHost: 'walletapp', appPackage: 'com.example.wallet' },
          globalLinks: { webUrl: 'https://global.wallet.example/', appScheme: 'walletglobal', appHost: 'global', appPackage: 'com.example.wallet.global' },
        },
      },
    });
    assert.deepEqual(buildRequestLinks(config, KEY), {
      request_key: KEY,
      region: 'default',
      universal_link: `https://wallet.example/?target=/a2a?request_key=${KEY}`,
      ios_scheme_link: `walletapp://walletapp/open?url=https://wallet.example/?target=/a2a?request_key=${KEY}`,
      android_intent_link: `intent://walletapp/open?url=https://wallet.example/?target=/a2a?request_key=${KEY}#Intent;scheme=walletapp;package=com.example.wallet;end`,
      qr_text: `https://wallet.example/?target=/a2a?request_key=${KEY}`,
      qr_png_url: `https://api.wallet.example/v2/a2a/qr?request_key=${KEY}&format=png`,
      qr_svg_url: `https://api.wallet.example/v2/a2a/qr?request_key=${KEY}&format=svg`,
    });
    assert.deepEqual(buildRequestLinks(config, KEY, 'global'), {
      request_key: KEY,
      region: 'global',
      universal_link: `https://global.wallet.example/?target=/a2a?request_key=${KEY}`,
      ios_scheme_link: `walletglobal://global/open?url=https://global.wallet.example/?target=/a2a?request_key=${KEY}`,
      android_intent_link: `intent://global/open?url=https://global.wallet.example/?target=/a2a?request_key=${KEY}#Intent;scheme=walletglobal;package=com.example.wallet.global;end`,
      qr_text: `https://global.wallet.example/?target=/a2a?request_key=${KEY}`,
      qr_png_url: `https://api.wallet.example/v2/a2a/qr?request_key=${KEY}&format=png&region=global`,
      qr_svg_url: `https://api.wallet.example/v2/a2a/qr?request_key=${KEY}&format=svg&region=global`,
    });
  });

  test('by default the universal link opens this service\'s own wallet page', () => {
    const config = loadConfig({ env: {}, overrides: { publicUrl: 'http://127.0.0.1:3000' } });
    assert.equal(buildRequestLinks(config, KEY).universal_link, `http://127.0.0.1:3000/?target=/a2a?request_key=${KEY}`);
  });
});

describe('GET /v2/a2a/links and /v2/a2a/qr', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  test('links of a live key, in both regions', async () => {
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    const links = await app.inject({ method: 'GET', url: `/v2/a2a/links?request_key=${key}` });
    assert.equal(links.statusCode, 200);
    assert.deepEqual(links.json(), buildRequestLinks(services.config, key));
    const global = await app.inject({ method: 'GET', url: `/v2/a2a/links?request_key=${key}&region=global` });
    assert.deepEqual(global.json(), buildRequestLinks(services.config, key, 'global'));
    assert.equal(links.headers['access-control-allow-origin'], '*');
    const unknown = await app.inject({ method: 'GET', url: '/v2/a2a/links?request_key=00000000-0000-0000-0000-000000000000' });
    assert.deepEqual([unknown.statusCode, unknown.json()], [400, { code: 6000, err: 'request key does not exist' }]);
    const badRegion = await app.inject({ method: 'GET', url: `/v2/a2a/links?request_key=${key}&region=mars` });
    assert.equal(badRegion.statusCode, 400);
  });

  test('the QR code as PNG and as SVG', async () => {
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    const png = await app.inject({ method: 'GET', url: `/v2/a2a/qr?request_key=${key}&format=png` });
    assert.equal(png.statusCode, 200);
    assert.equal(png.headers['content-type'], 'image/png');
    assert.deepEqual([...png.rawPayload.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const svg = await app.inject({ method: 'GET', url: `/v2/a2a/qr?request_key=${key}&format=svg&region=global` });
    assert.equal(svg.statusCode, 200);
    assert.match(svg.headers['content-type'] as string, /^image\/svg\+xml/);
    assert.match(svg.body, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg.body, /<\/svg>\s*$/);
    const defaultFormat = await app.inject({ method: 'GET', url: `/v2/a2a/qr?request_key=${key}` });
    assert.equal(defaultFormat.headers['content-type'], 'image/png');
  });
});
