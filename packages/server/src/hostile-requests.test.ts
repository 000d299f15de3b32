import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp, type App } from './app.ts';
import { errorCodes } from './errors/codes.ts';
import { signedInPartner } from './partner-api/testing/partner-session.ts';
import { signedInMember } from './a2a/testing/support.ts';
import { openTestServices, type TestServices } from './testing/test-services.ts';
import { storeSnapshot } from './testing/store-snapshot.ts';

/**
 * Every route of the app, as the router prints it: each line of the tree is a segment that
 * continues its parent's path.
 */
function listRoutes(app: App): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│├└─\s]*)(\S.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, path });
  }
  return routes;
}

/** What a path parameter is replaced with. */
const HOSTILE_SEGMENTS = ['0', '1', '-1', '1e309', 'Infinity', '-1e309', '2147483648', '9007199254740993', (2n ** 256n).toString(), '0x', '%00', '%E0%A4%A', '%zz', "1'%20or%20'1'='1", '..%2F..%2Fetc%2Fpasswd', '%F0%9F%92%A5', 'a'.repeat(5_000)];

/** The segments a path parameter could validly have: a body is sent with these. */
const VALID_SEGMENTS = new Set(['0', '1']);

/** Query strings added to every route. */
const HOSTILE_QUERIES = [
  '',
  '?cursor=%00&limit=-1&wait=1e309&nft_id=__proto__&request_key=..%2F',
  '?__proto__[polluted]=1&constructor[prototype][polluted]=1',
  '?contract_address=0xZZ&contract_address=0x00&page=NaN&isAll=maybe',
  '?wait=Infinity&limit=1e309&page=-1e309&nft_id=1e309',
  `?request_key=${'k'.repeat(10_000)}`,
];

/** Bodies sent to every route that takes one: [content-type, payload]. */
const HOSTILE_BODIES: Array<[string, string]> = [
  ['application/json', '{'],
  ['application/json', 'null'],
  ['application/json', '[]'],
  ['application/json', '"text"'],
  ['application/json', '12345678901234567890123456789'],
  ['application/json', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'],
  ['application/json', '{"pin":{},"to_address":"0x","card_ids":[-1,1e309],"amount":"-1","contract_address":[null],"transaction":{"to":1}}'],
  ['application/json', '{"card_ids":[1e309],"nft_id":1e309,"card_id":-1e309,"amount":1e309,"count":1e309,"wait":1e309,"mint_limit":1e309}'],
  ['application/json', '{"email":"' + 'e'.repeat(100_000) + '","password":1,"type":"auth","bapp":{"name":""}}'],
  ['application/json', '{"email":"a\\u0000@example.com","password":"\\u0000","name":"\\u0000","to_person":[["\\u0000","+14155550100"]],"\\u0000":1}'],
  ['application/json', '{"card_id":"1","card_ids":"1","to_address":"0x0000000000000000000000000000000000000001","nft_id":true,"isAll":"true"}'],
  ['application/json', '{"card_id":115792089237316195423570985008687907853269984665640564039457584007913129639936,"card_ids":[9007199254740993]}'],
  ['application/json', '['.repeat(5_000) + ']'.repeat(5_000)],
  ['application/json', '{"a":' + '1'.repeat(1024 * 1024) + '}'],
  ['text/plain', 'hello'],
  ['application/x-www-form-urlencoded', 'pin=1&pin=2'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="upload"; filename="../../a.png"\r\n\r\nGIF89a\r\n--x--\r\n'],
  ['multipart/form-data; boundary=x', '--x\r\nbroken'],
  ['application/octet-stream', '\u0000\u0001\u0002'],
];

describe('hostile requests to every route', () => {
  let services: TestServices;
  let app: App;
  let partner: Awaited<ReturnType<typeof signedInPartner>>;
  let partnerToken: string;
  let memberToken: string;

  before(async () => {
    services = await openTestServices();
    app = await buildApp({ services });
    partner = await signedInPartner(app, services);
    partnerToken = partner.token;
    memberToken = (await signedInMember(app, services)).token;
  });
  after(async () => {
    await app?.close();
    await services?.cleanup();
  });

  test('answer a registry error body (never a 5xx), pollute nothing and change nothing in the store', async () => {
    const routes = listRoutes(app);
    // The parse found the app's routes (a broken parse must not pass as "no route misbehaved").
    assert.ok(routes.length >= 40, `only ${routes.length} routes found`);
    assert.ok(routes.some((route) => route.method === 'POST' && route.path === '/v2/wallet/mint'));
    assert.ok(routes.some((route) => route.method === 'GET' && route.path === '/v2/wallet-app/a2a/requests/:request_key'));

    // The card index follows the chain in the background: let it reach the head first (refused
    // requests add no blocks), so what it writes meanwhile is not taken for a request's doing.
    const head = await services.chains.get('main').client.getBlockNumber({ cacheTime: 0 });
    await services.cardIndex.waitUntilIndexed('main', head);
    const storeBefore = await storeSnapshot(services);
    const auths: Array<Record<string, string>> = [
      {},
      { authorization: partnerToken },
      { authorization: `Bearer ${memberToken}` },
      { authorization: `Bearer ${'x'.repeat(9_000)}` },
      { authorization: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' },
    ];
    // Kinds of misbehaviour, each with one example request and how often it happened.
    const misbehaved = new Map<string, { example: string; count: number }>();
    const note = (kind: string, example: string) => {
      const seen = misbehaved.get(kind) ?? { example, count: 0 };
      seen.count += 1;
      misbehaved.set(kind, seen);
    };
    let sent = 0;
    /** How often each route answered each status under each authorization. */
    const answers = new Map<string, number>();
    for (const route of routes) {
      const segments = route.path.includes(':') ? HOSTILE_SEGMENTS : [''];
      for (const segment of segments) {
        const path = route.path.replace(/:[a-z_]+/g, segment);
        for (const headers of auths) {
          // Signing out (here, or everywhere) needs nothing but the session, so with it any of these requests does so.
          const signsOut = route.method === 'DELETE' && (route.path === '/v2/wallet-app/sessions/current' || route.path === '/v2/wallet-app/sessions');
          if (signsOut && headers.authorization === `Bearer ${memberToken}`) continue;
          // Every hostile query with every segment; every hostile body with the segments a valid
          // path could have ('0', '1'). A body is parsed the same whatever the segment, and the path
          // parameters are checked before it, so the pairs of a hostile segment and a hostile body
          // (half the requests) were answered the segment's refusal.
          const bodiesToo = route.method !== 'GET' && (segment === '' || VALID_SEGMENTS.has(segment));
          const requests: Array<{ url: string; type?: string; payload?: string }> = [
            ...HOSTILE_QUERIES.map((query) => ({ url: path + query })),
            ...(bodiesToo ? HOSTILE_BODIES.map(([type, payload]) => ({ url: path, type, payload })) : []),
          ];
          for (const request of requests) {
            const response = await app.inject({
              // Each from an address of its own: the per-address back-off after failed sign-ins and
              // bad tokens would otherwise answer 429 to most of them before any check ran.
              remoteAddress: `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`,
              method: route.method as 'GET',
              url: request.url,
              headers: { ...headers, ...(request.type ? { 'content-type': request.type } : {}) },
              ...(request.payload === undefined ? {} : { payload: request.payload }),
            });
            sent += 1;
            const answered = `${route.method} ${route.path} ${headers.authorization ?? ''} ${response.statusCode}`;
            answers.set(answered, (answers.get(answered) ?? 0) + 1);
            const what = `${route.method} ${request.url.slice(0, 120)} [${Object.keys(headers).join() || 'no auth'}${request.type ? `, ${request.type}: ${request.payload?.slice(0, 40)}` : ''}]`;
            if (response.statusCode >= 500) {
              note(`${route.method} ${route.path} -> ${response.statusCode} ${response.body.slice(0, 100)}`, what);
              continue;
            }
            if (response.statusCode < 400) continue;
            const body = (() => {
              try {
                return response.json() as { code?: unknown; err?: unknown };
              } catch {
                return undefined;
              }
            })();
            if (typeof body?.code !== 'number' || typeof body.err !== 'string' || !(body.code in errorCodes)) {
              note(`${route.method} ${route.path} -> ${response.statusCode} without a registry body: ${response.body.slice(0, 100)}`, what);
            }
          }
        }
      }
    }
    const report = [...misbehaved].map(([kind, { example, count }]) => `${count} x ${kind}\n    e.g. ${example}`);
    assert.deepEqual(report, [], `of ${sent} requests, some misbehaved`);
    // The valid sessions got past authentication to the checks of the request itself.
    assert.ok(answers.get(`POST /v2/wallet/mint ${partnerToken} 400`), 'the partner token never reached the mint checks');
    assert.ok(answers.get(`GET /v2/wallet-app/cards/:nft_id/:card_id Bearer ${memberToken} 404`), 'the member session never reached a card lookup');
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');

    const storeAfter = await storeSnapshot(services);
    const changed = [...storeAfter].filter(([table, rows]) => storeBefore.get(table) !== rows).map(([table]) => table);
    assert.deepEqual(changed, [], `refused requests changed ${changed.join(', ')}`);
    // The sessions used above still work: nothing refused logged them out or locked them.
    const me = await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { authorization: `Bearer ${memberToken}` } });
    assert.equal(me.statusCode, 200, me.body);
  });

  test('numbers that parse as infinite, over-long path parameters and bad percent-encoding are refused with a 400 that says so', async () => {
    const refusals: Array<[string, Record<string, string>, string]> = [
      // Ajv coerces these to Infinity and skips its bounds; on PostgreSQL they reached the store.
      ['/v2/wallet/nft/1e309', { authorization: partnerToken }, 'params/nft_id must be a finite number'],
      ['/v2/wallet/nft/-Infinity', { authorization: partnerToken }, 'params/nft_id must be a finite number'],
      ['/v2/metadata/1/Infinity', {}, 'params/card_id must be a finite number'],
      // The router's own refusals get the registry's body, not Fastify's.
      [`/v2/files/${'a'.repeat(101)}`, {}, 'a path parameter is longer than 100 characters'],
      ['/v2/files/%E0%A4%A', {}, 'the path is not validly percent-encoded'],
    ];
    for (const [url, headers, message] of refusals) {
      const response = await app.inject({ method: 'GET', url, headers });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.deepEqual(response.json(), { code: 400, err: 'bad request', message }, url);
    }
    // A finite value of the same parameter is not refused by the check.
    const known = await app.inject({ method: 'GET', url: '/v2/wallet/nft/0', headers: { authorization: partnerToken } });
    assert.equal(known.statusCode, 404, known.body);

    // 1e309 in a JSON body is Infinity once parsed, and not coerced: refused by the schema where it
    // wants an integer...
    const escrow = await app.inject({
      method: 'POST',
      url: '/v2/escrow',
      headers: { authorization: partnerToken, 'content-type': 'application/json' },
      payload: `{"pin":"${partner.pinHash}","contract_address":"${partner.contractAddress}","card_ids":[1e309]}`,
    });
    assert.equal(escrow.statusCode, 400, escrow.body);
    assert.deepEqual(escrow.json(), { code: 400, err: 'bad request', message: 'body/card_ids/0 must be integer' });
    // Ids past what the store or a JSON number holds are refused before any lookup: on PostgreSQL
    // nft_id is a 32-bit integer, and a card id above 2^53 would be rounded to another card.
    for (const [url, message] of [
      [`/v2/wallet/nft/2147483648/1/send`, 'params/nft_id must be <= 2147483647'],
      [`/v2/wallet/nft/1/${2n ** 256n}/send`, 'params/card_id must be <= 9007199254740991'],
      [`/v2/wallet/nft/1/9007199254740993/send/person`, 'params/card_id must be <= 9007199254740991'],
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: url!,
        headers: { authorization: partnerToken },
        payload: { pin: partner.pinHash, to_address: partner.partner.main_address, to_person: [['Kim', '+14155550100']], card_name: 'Card' },
      });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.deepEqual(response.json(), { code: 400, err: 'bad request', message }, url);
    }
    const pinFailures = () => services.vault.pinFailures(partner.partner.key_id);
    const failuresBefore = await pinFailures();
    // A body's values are taken with the types they were sent with: a string or a boolean where a
    // card id belongs is refused, not read as some card.
    for (const [cardId, message] of [
      ['"1"', 'body/card_id must be integer'],
      ['true', 'body/card_id must be integer'],
      ['[1]', 'body/card_id must be integer'],
      ['null', 'body/card_id must be integer'],
      [`${2n ** 256n}`, 'body/card_id must be <= 9007199254740991'],
    ]) {
      const response = await app.inject({
        method: 'DELETE',
        url: '/v2/wallet/nft',
        headers: { authorization: partnerToken, 'content-type': 'application/json' },
        payload: `{"pin":"${partner.pinHash}","contract_address":"${partner.contractAddress}","card_id":${cardId}}`,
      });
      assert.equal(response.statusCode, 400, `${cardId}: ${response.body}`);
      assert.deepEqual(response.json(), { code: 400, err: 'bad request', message }, cardId);
    }
    // A NUL character (which PostgreSQL cannot store) is refused on every store alike, before the PIN is tried.
    for (const [url, payload, message] of [
      ['/v2/partner/auth', { email: 'shop\u0000@example.com', password: partner.passwordHash }, 'body/email must not contain a NUL character'],
      ['/v2/wallet/mint', { pin: partner.pinHash, contract_address: partner.contractAddress, to_address: [partner.partner.main_address], name: 'Gold\u0000', description: 'd', image: 'https://example.com/a.png' }, 'body/name must not contain a NUL character'],
      ['/v2/a2a/prepare', { type: 'sign_message', bapp: { name: 'BApp' }, message: { value: 'hi\u0000' } }, 'body/message/value must not contain a NUL character'],
    ] as const) {
      const response = await app.inject({ method: 'POST', url, headers: { authorization: partnerToken }, payload });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.deepEqual(response.json(), { code: 400, err: 'bad request', message }, url);
    }
    assert.equal(await pinFailures(), failuresBefore, 'no PIN was tried');

    // ...and, in B1's free-form fields, answered with the code the specification gives that field.
    const prepared = (body: string) =>
      app.inject({ method: 'POST', url: '/v2/a2a/prepare', headers: { 'content-type': 'application/json' }, payload: body });
    const bapp = '"bapp":{"name":"Test BApp"}';
    const to = '0x0000000000000000000000000000000000000001';
    for (const [body, code] of [
      [`{${bapp},"type":1e309}`, 6010],
      [`{${bapp},"type":"send_coin","chain":1e309,"transaction":{"to":"${to}","amount":"1"}}`, 6417],
      [`{${bapp},"type":"execute_contract","transaction":{"to":"${to}","value":1e309,"encoded_function_call":"0x"}}`, 6409],
      [`{${bapp},"type":"sign_message","message":{"value":1e309}}`, 6409],
    ] as const) {
      const response = await prepared(body);
      assert.equal(response.json().code, code, `${body}: ${response.body}`);
    }
  });
});
