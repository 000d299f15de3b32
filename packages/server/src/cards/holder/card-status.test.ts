import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { signedInMember, walletApp } from '../../a2a/testing/support.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { buildMintPayload, mintOk } from '../testing/card-factories.ts';

// The partner's status server runs on loopback here, so this service may reach private addresses;
// that the default refuses them is checked in outbound/guarded-fetch.test.ts.
let t: TestApp;
let server: Server;
let statusBase = '';
const answers = new Map<string, string>([
  ['/valid', JSON.stringify({ valid: true, attributes: [{ trait_type: 'entry', value: 'used' }] })],
  ['/invalid', JSON.stringify({ valid: false })],
  ['/malformed', JSON.stringify({ valid: 'yes' })],
]);

before(async () => {
  t = await openTestApp({ cards: { statusUrl: { allowPrivateAddresses: true, timeoutMs: 2_000 } } });
  server = createServer((request, response) => {
    const body = answers.get(request.url ?? '');
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  statusBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await t.cleanup();
  await new Promise((resolve) => server.close(resolve));
});

test("the holder's view of a card carries what its status_url says now, or why it could not be read", async () => {
  const partner = await signedInPartner(t.app, t.services);
  const holder = await signedInMember(t.app, t.services);
  const nftId = Number(partner.nftId);
  const view = async (statusUrl: string | undefined) => {
    const payload = buildMintPayload(partner, { to_address: [holder.address], ...(statusUrl ? { status_url: statusUrl } : {}) });
    const cardId = (await mintOk(t.app, partner.token, payload)).card_ids[0]!;
    const response = await walletApp(t.app, holder.token, 'GET', `/v2/wallet-app/cards/${nftId}/${cardId}`);
    assert.equal(response.statusCode, 200, response.body);
    const { status, status_error: statusError, metadata } = response.json();
    assert.equal(metadata.status_url, statusUrl);
    return { status, statusError };
  };

  assert.deepEqual(await view(`${statusBase}/valid`), { status: { valid: true, attributes: [{ trait_type: 'entry', value: 'used' }] }, statusError: undefined });
  assert.deepEqual(await view(`${statusBase}/invalid`), { status: { valid: false }, statusError: undefined });
  assert.deepEqual(await view(`${statusBase}/malformed`), { status: undefined, statusError: 'the answer has no boolean valid' });
  assert.deepEqual(await view(`${statusBase}/gone`), { status: undefined, statusError: 'the URL answered HTTP 404' });
  assert.deepEqual(await view(undefined), { status: undefined, statusError: undefined }, 'a card without status_url fetches nothing');
  // It is read when the holder looks, not when the card was minted: a changed answer shows at once.
  answers.set('/invalid', JSON.stringify({ valid: true }));
  assert.deepEqual(await view(`${statusBase}/invalid`), { status: { valid: true }, statusError: undefined });
});
