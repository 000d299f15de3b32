import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as sdk from './index.ts';
import { createClient, isError, memoryStorage, type KeyValueStorage } from './index.ts';
import { BASE, expectOk, fakeFetch, KEY, state, withGlobal } from './testing/fake-fetch.ts';

const ADDRESS = '0xd000000000000000000000000000000000000001';
const CONTRACT = '0xc000000000000000000000000000000000000003';
const AUTH = state('completed', { result: { main_address: ADDRESS, evm_address: ADDRESS, solana_address: 'So1' } });

/** A storage that records what was done to it. */
function recordingStorage(): KeyValueStorage & { log: string[] } {
  const inner = memoryStorage();
  const log: string[] = [];
  return {
    log,
    getItem: (key) => inner.getItem(key),
    setItem: (key, value) => {
      log.push(`set ${key}`);
      inner.setItem(key, value);
    },
    removeItem: (key) => {
      log.push(`remove ${key}`);
      inner.removeItem(key);
    },
  };
}

describe('the top-level functions', () => {
  // First in this file: nothing is configured yet.
  test('outside a browser they need configure({ baseUrl }) first', () => {
    assert.throws(() => sdk.getResult(KEY), { name: 'TypeError', message: 'baseUrl is required outside a browser page' });
    assert.throws(() => sdk.prepare.auth({ bappName: 'Shop' }), { name: 'TypeError' });
  });

  test('use the client configure() set', async () => {
    const fake = fakeFetch(
      { body: { request_key: KEY, status: 'prepared', expiration_time: 1 } },
      AUTH,
      AUTH,
      { body: { request_key: KEY, universal_link: 'u', ios_scheme_link: 'i', android_intent_link: 'a' } },
      { body: { name: 'Cards', symbol_img: '', cards: [], next_cursor: '' } },
    );
    const configured = sdk.configure({ baseUrl: BASE, fetch: fake.fetch, storage: memoryStorage(), environment: 'other' });
    assert.equal(configured.baseUrl, BASE);
    expectOk(await sdk.prepare.sendCoin({ bappName: 'Shop', to: ADDRESS, amount: '1' }));
    assert.equal((await sdk.getResult(KEY)).status, 'completed');
    assert.equal((await sdk.waitForResult(KEY)).status, 'completed');
    assert.equal(sdk.getConnection()?.main_address, ADDRESS);
    sdk.disconnect();
    assert.equal(sdk.getConnection(), null);
    assert.equal(expectOk(await sdk.request(KEY)).opened, false);
    assert.equal(expectOk(await sdk.getRequestUrl(KEY)).url, 'u');
    assert.equal(expectOk(await sdk.getCardList({ contract: CONTRACT, eoa: ADDRESS })).name, 'Cards');
    assert.deepEqual(fake.calls.map((call) => call.method + ' ' + call.url.replace(BASE, '').split('?')[0]), [
      'POST /v2/a2a/prepare',
      'GET /v2/a2a/result',
      'GET /v2/a2a/result',
      'GET /v2/a2a/links',
      'GET /v2/a2a/cards',
    ]);
    assert.deepEqual(Object.keys(sdk.prepare).sort(), Object.keys(configured.prepare).sort());
  });
});

describe('createClient options', () => {
  test('baseUrl must be an http or https URL; trailing slashes are dropped, a path is kept', () => {
    assert.throws(() => createClient({ baseUrl: 'not a url', fetch: fakeFetch().fetch }), { name: 'TypeError', message: 'baseUrl is not a URL: not a url' });
    assert.throws(() => createClient({ baseUrl: 'ftp://a2a.example', fetch: fakeFetch().fetch }), /http or https/);
    assert.equal(createClient({ baseUrl: 'https://a2a.example/wallet//', fetch: fakeFetch().fetch }).baseUrl, 'https://a2a.example/wallet');
    assert.throws(() => createClient({ baseUrl: BASE, region: 'global', globalBaseUrl: 'nope', fetch: fakeFetch().fetch }), /globalBaseUrl/);
  });

  test('the global region needs only globalBaseUrl', () => {
    assert.equal(createClient({ region: 'global', globalBaseUrl: 'https://global.example', fetch: fakeFetch().fetch }).baseUrl, 'https://global.example');
    assert.equal(createClient({ globalBaseUrl: 'https://global.example', baseUrl: BASE, fetch: fakeFetch().fetch }).baseUrl, BASE, 'not used in the default region');
  });

  test('the global region without globalBaseUrl uses baseUrl', () => {
    const a2a = createClient({ baseUrl: BASE, region: 'global', fetch: fakeFetch().fetch });
    assert.equal(a2a.baseUrl, BASE);
    assert.equal(a2a.region, 'global');
  });

  test('the global fetch is used by default, and its absence is told', async () => {
    assert.doesNotThrow(() => createClient({ baseUrl: BASE }));
    await withGlobal('fetch', undefined, () =>
      assert.throws(() => createClient({ baseUrl: BASE }), { name: 'TypeError', message: 'no global fetch: pass options.fetch' }),
    );
  });

  test('in a page, baseUrl defaults to the page origin', async () => {
    await withGlobal('location', { origin: 'https://bapp.example' }, () =>
      assert.equal(createClient({ fetch: fakeFetch().fetch }).baseUrl, 'https://bapp.example'),
    );
  });
});

describe('getCardList', () => {
  test('sends sca, eoa, cursor and chain and resolves to the page', async () => {
    const page = {
      name: 'Example Cards',
      symbol_img: '',
      next_cursor: 'YzE6MTAw',
      cards: [{ card_id: 1, owner: ADDRESS, sender: ADDRESS, sender_kakao_id: '', card_uri: 'u', transaction_hash: '0x1', created_at: 1, updated_at: 2, created_at_format: 'a', updated_at_format: 'b' }],
    };
    const fake = fakeFetch({ body: page }, { body: page });
    const a2a = createClient({ baseUrl: BASE, fetch: fake.fetch, storage: null });
    assert.deepEqual(await a2a.getCardList({ contract: CONTRACT, eoa: ADDRESS }), page);
    await a2a.getCardList({ contract: CONTRACT, eoa: ADDRESS, cursor: 'YzE6MTAw', chain: 'polygon' });
    assert.deepEqual(fake.paths(), [
      `/v2/a2a/cards?sca=${CONTRACT}&eoa=${ADDRESS}`,
      `/v2/a2a/cards?sca=${CONTRACT}&eoa=${ADDRESS}&cursor=YzE6MTAw&chain=polygon`,
    ]);
  });

  test('the bare { code, err } of B4', async () => {
    const fake = fakeFetch({ status: 400, body: { code: 6405, err: 'invalid contract' } }, { status: 400, body: { code: 400, err: 'bad request' } });
    const a2a = createClient({ baseUrl: BASE, fetch: fake.fetch, storage: null });
    assert.deepEqual(await a2a.getCardList({ contract: '0x1', eoa: ADDRESS }), { code: 6405, err: 'invalid contract' });
    assert.deepEqual(await a2a.getCardList({ contract: CONTRACT, eoa: 'me' }), { code: 400, err: 'bad request' });
  });
});

describe('connection and disconnect', () => {
  test('disconnect deletes the stored addresses at once', async () => {
    const storage = recordingStorage();
    const a2a = createClient({ baseUrl: BASE, fetch: fakeFetch(AUTH).fetch, storage });
    assert.equal(a2a.getConnection(), null);
    await a2a.getResult(KEY);
    assert.deepEqual(JSON.parse(storage.getItem('wallet-a2a.connection')!).solana_address, 'So1');
    a2a.disconnect();
    assert.equal(storage.getItem('wallet-a2a.connection'), null);
    assert.equal(a2a.getConnection(), null);
    assert.deepEqual(storage.log, ['set wallet-a2a.connection', 'remove wallet-a2a.connection']);
  });

  test('a client with another storageKey keeps its own connection', async () => {
    const storage = memoryStorage();
    const one = createClient({ baseUrl: BASE, fetch: fakeFetch(AUTH).fetch, storage, storageKey: 'one' });
    const two = createClient({ baseUrl: BASE, fetch: fakeFetch().fetch, storage, storageKey: 'two' });
    await one.getResult(KEY);
    assert.equal(one.getConnection()?.main_address, ADDRESS);
    assert.equal(two.getConnection(), null);
    two.disconnect();
    assert.equal(one.getConnection()?.main_address, ADDRESS);
  });

  test('storage null keeps nothing', async () => {
    const a2a = createClient({ baseUrl: BASE, fetch: fakeFetch(AUTH).fetch, storage: null });
    assert.equal((await a2a.getResult(KEY)).status, 'completed');
    assert.equal(a2a.getConnection(), null);
    assert.doesNotThrow(() => a2a.disconnect());
  });

  test('something else under the key is no connection', () => {
    const storage = memoryStorage();
    const a2a = createClient({ baseUrl: BASE, fetch: fakeFetch().fetch, storage });
    storage.setItem('wallet-a2a.connection', '{not json');
    assert.equal(a2a.getConnection(), null);
    storage.setItem('wallet-a2a.connection', '{"evm_address":"0x1"}');
    assert.equal(a2a.getConnection(), null);
  });

  test('in a page the connection lives in localStorage; a refusing localStorage falls back to memory', async () => {
    const local = memoryStorage();
    await withGlobal('window', { localStorage: local }, () => createClient({ baseUrl: BASE, fetch: fakeFetch(AUTH).fetch }).getResult(KEY));
    assert.match(local.getItem('wallet-a2a.connection')!, new RegExp(ADDRESS));
    assert.equal(local.getItem('wallet-a2a.connection.probe'), null, 'the probe leaves nothing behind');

    const refusing = {
      getItem: () => null,
      setItem: () => {
        throw new Error('SecurityError');
      },
      removeItem: () => undefined,
    };
    const a2a = await withGlobal('window', { localStorage: refusing }, () => createClient({ baseUrl: BASE, fetch: fakeFetch(AUTH).fetch }));
    await a2a.getResult(KEY);
    assert.equal(a2a.getConnection()?.main_address, ADDRESS);
  });
});

describe('isError', () => {
  test('tells failures from answers', () => {
    assert.equal(isError({ err: 'invalid amount', code: 6404 }), true);
    assert.equal(isError({ request_key: KEY, status: 'prepared', expiration_time: 1 }), false);
    assert.equal(isError(null), false);
    assert.equal(isError({ err: 'x' }), false);
  });
});
