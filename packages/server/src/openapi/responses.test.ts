import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../app.ts';
import { prepareKey, signedInMember, walletApp } from '../a2a/testing/support.ts';
import { buildMintPayload, indexedToHead, mintOk, partnerCall, pathOf } from '../cards/testing/card-factories.ts';
import { signedInPartner, signInToken } from '../partner-api/testing/partner-session.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { buildPng } from '../uploads/testing/media.ts';
import { uploadBody } from '../uploads/testing/multipart.ts';

/**
 * A recorded set of requests that calls every operation of the document, each answer checked
 * against the document: its status must be listed for the operation, its content type among that
 * status's, and a JSON or text body must match the schema. An operation no request reached fails.
 */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let app: App;
let document: Document;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<object, ValidateFunction>();
/** `METHOD /path status` of every answer checked. */
const answered = new Set<string>();

before(async () => {
  t = await openTestApp();
  app = t.app;
  await app.ready();
  document = app.swagger() as unknown as Document;
});
after(async () => {
  await t?.cleanup();
});

/** Sends a request and checks its answer against the document's operation `method path` (an OpenAPI path). */
async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  request: { url?: string; headers?: Record<string, string>; payload?: object | Buffer | string } = {},
): Promise<LightMyRequestResponse> {
  const response = await app.inject({ method, url: request.url ?? path, headers: request.headers ?? {}, ...(request.payload !== undefined ? { payload: request.payload } : {}) });
  checkAnswer(method, path, response);
  return response;
}

function checkAnswer(method: string, path: string, response: LightMyRequestResponse): void {
  const where = `${method} ${path} (${response.statusCode})`;
  const operation = document.paths[path]?.[method.toLowerCase()];
  assert.ok(operation, `${method} ${path} is not in the document`);
  const documented = operation.responses[String(response.statusCode)];
  assert.ok(documented, `${where}: the document does not list this status; body: ${response.body.slice(0, 300)}`);
  answered.add(`${method} ${path} ${response.statusCode}`);
  if (!documented.content) {
    assert.equal(response.body, '', `${where}: the document says no body`);
    return;
  }
  const type = String(response.headers['content-type'] ?? '').split(';')[0]!.trim();
  const media = documented.content[type] ?? documented.content[`${type.split('/')[0]}/*`];
  assert.ok(media, `${where}: ${type} is not among ${Object.keys(documented.content).join(', ')}`);
  if (type === 'application/json') validate(where, media.schema, response.json());
  else if (type === 'text/plain') validate(where, media.schema, response.body);
}

function validate(where: string, schema: object, body: unknown): void {
  let validator = validators.get(schema);
  if (!validator) validators.set(schema, (validator = ajv.compile(schema)));
  assert.ok(validator(body), `${where}: ${ajv.errorsText(validator.errors)}; body: ${JSON.stringify(body).slice(0, 500)}`);
}

test('every operation answers as the document says, for a recorded set of requests', async () => {
  const json = (response: LightMyRequestResponse) => response.json() as Record<string, any>;

  // Service and pages (the pages answer 503 when the app or the SDK bundle is not built).
  await call('GET', '/health');
  await call('GET', '/health/live');
  await call('GET', '/health/ready');
  for (const page of ['/', '/sign-in', '/sign-up', '/account']) await call('GET', page);
  await call('GET', '/claim/{claim_id}', { url: '/claim/AAAAAAAAAAAAAAAAAAAAAA' });
  for (const file of ['/examples/bapp', '/examples/bapp/', '/examples/bapp/app.js', '/examples/bapp/style.css', '/examples/bapp/wallet-a2a.js']) await call('GET', file);
  for (const file of ['/examples/dapp', '/examples/dapp/']) await call('GET', file);
  await call('GET', '/examples/dapp/assets/{name}', { url: '/examples/dapp/assets/missing.js' });

  // Family A: sign-in and credentials.
  const partner = await signedInPartner(app, t.services);
  const auth = { authorization: partner.token };
  await call('POST', '/v2/partner/auth', { payload: { email: partner.partner.email, password: partner.passwordHash } });
  await call('POST', '/v2/partner/auth', { payload: { email: partner.partner.email, password: 'f'.repeat(64) } });
  await call('POST', '/v2/partner/auth', { payload: { email: partner.partner.email } });
  // A password change ends the partner's sessions: sign in again after each.
  const newPassword = 'a'.repeat(64);
  const changed = await call('PUT', '/v2/partner/', { url: '/v2/partner/?opt=password', headers: auth, payload: { old_password: partner.passwordHash, new_password: newPassword } });
  assert.equal(changed.statusCode, 200, changed.body);
  auth.authorization = await signInToken(app, partner.partner.email, newPassword);
  await call('PUT', '/v2/partner', { url: '/v2/partner?opt=password', headers: auth, payload: { old_password: newPassword, new_password: partner.passwordHash } });
  auth.authorization = await signInToken(app, partner.partner.email, partner.passwordHash);
  partner.token = auth.authorization;
  await call('PUT', '/v2/partner/pin', { headers: auth, payload: { old_pin: partner.pinHash, new_pin: partner.pinHash } });
  await call('PUT', '/v2/partner/pin', { payload: { old_pin: partner.pinHash, new_pin: 'b'.repeat(64) } });

  // Uploads and files.
  const png = buildPng({ width: 4, height: 4 });
  const upload = (filename: string) => {
    const body = uploadBody(png, filename, 'image/png');
    return { headers: { ...auth, ...body.headers }, payload: body.payload };
  };
  const image = await call('POST', '/v2/wallet/image', upload('card.png'));
  assert.equal(image.statusCode, 200, image.body);
  await call('POST', '/v2/wallet/image', { headers: { ...auth, 'content-type': 'application/json' }, payload: {} });
  const resource = await call('POST', '/v2/wallet/nftResource', upload('card.png'));
  const secure = await call('POST', '/v2/wallet/nftResource/secure', upload('secret.png'));
  const secureName = json(secure).filename as string;
  const own = await call('GET', '/v2/wallet/nftResource/secure/{filename}', { url: `/v2/wallet/nftResource/secure/${secureName}`, headers: auth });
  assert.equal(own.statusCode, 200);
  await call('GET', '/v2/files/{filename}', { url: pathOf(json(image).image) });
  await call('GET', '/v2/files/{filename}', { url: pathOf(json(resource).url) });
  await call('GET', '/v2/files/{filename}', { url: '/v2/files/missing.png' });

  // Minting, lists, receipts, metadata.
  const member = await signedInMember(app, t.services, { coins: '1' });
  const bearer = { authorization: `Bearer ${member.token}` };
  const minted = await mintOk(app, partner.token, buildMintPayload(partner, { to_address: [partner.partner.main_address, partner.partner.main_address, partner.partner.main_address, partner.partner.main_address] }));
  const [first, second, third, fourth] = minted.card_ids as number[];
  await call('POST', '/v2/wallet/mint', { headers: auth, payload: buildMintPayload(partner, { to_address: [member.address], secure: { images: [{ low_resolution: secureName }] } }) });
  await call('POST', '/v2/wallet/mint', { headers: auth, payload: buildMintPayload(partner, { to_address: [] }) });
  await call('GET', '/v2/wallet/mint/count', { headers: auth });
  await call('GET', '/v2/wallet/mint/count');
  await call('POST', '/v2/wallet/mint/person', { headers: auth, payload: buildMintPayload(partner, { to_address: undefined, to_person: [[member.user.name, member.user.phone]] }) });
  await call('POST', '/v2/wallet/invite', { headers: auth, payload: { to_person: [['Newcomer Kim', '+14155550199']] } });
  await indexedToHead(t.services);
  await call('GET', '/v2/wallet/bapp', { headers: auth });
  const list = await call('GET', '/v2/wallet/nft/{nft_id}', { url: `/v2/wallet/nft/${partner.nftId}?isAll=true`, headers: auth });
  assert.equal(list.statusCode, 200, list.body);
  await call('GET', '/v2/wallet/nft/{nft_id}', { url: `/v2/wallet/nft/${partner.nftId}?isAll=true&cursor=x`, headers: auth });
  await call('GET', '/v2/wallet/receipt', { url: `/v2/wallet/receipt?tx_hash=${minted.hash}`, headers: auth });
  await call('GET', '/v2/wallet/receipt', { url: `/v2/wallet/receipt?tx_hash=0x${'0'.repeat(64)}`, headers: auth });
  await call('GET', '/v2/metadata/{nft_id}/{card_id}', { url: `/v2/metadata/${partner.nftId}/${first}` });
  await call('GET', '/v2/metadata/{nft_id}/{card_id}', { url: `/v2/metadata/${partner.nftId}/999999` });

  // Sending and deleting.
  await call('POST', '/v2/wallet/nft/{nft_id}/{card_id}/send', {
    url: `/v2/wallet/nft/${partner.nftId}/${first}/send`,
    headers: auth,
    payload: { pin: partner.pinHash, to_address: member.address, card_name: 'Gold Member Card' },
  });
  await call('POST', '/v2/wallet/nft/{nft_id}/{card_id}/send/person', {
    url: `/v2/wallet/nft/${partner.nftId}/${second}/send/person`,
    headers: auth,
    payload: { pin: partner.pinHash, to_person: [member.user.name, member.user.phone], card_name: 'Gold Member Card' },
  });
  await call('DELETE', '/v2/wallet/nft', { headers: auth, payload: { pin: partner.pinHash, card_id: third, contract_address: partner.contractAddress } });
  await call('DELETE', '/v2/wallet/nft', { headers: auth, payload: { pin: 'c'.repeat(64), card_id: fourth, contract_address: partner.contractAddress } });

  // Webhook endpoints (deleted at the end, so nothing is delivered to the example host).
  const hook = await call('POST', '/v2/partner/webhooks', { headers: auth, payload: { url: 'https://hooks.example.com/wallet', events: ['card.sent'] } });
  assert.equal(hook.statusCode, 200, hook.body);
  const hookId = json(hook).id as string;
  await call('POST', '/v2/partner/webhooks', { headers: auth, payload: { url: 'not a url', events: ['card.sent'] } });
  await call('GET', '/v2/partner/webhooks', { headers: auth });
  await call('POST', '/v2/partner/webhooks/{endpoint_id}/rotate-secret', { url: `/v2/partner/webhooks/${hookId}/rotate-secret`, headers: auth });
  const hookTest = await call('POST', '/v2/partner/webhooks/{endpoint_id}/test', { url: `/v2/partner/webhooks/${hookId}/test`, headers: auth });
  await call('GET', '/v2/partner/webhooks/{endpoint_id}/deliveries', { url: `/v2/partner/webhooks/${hookId}/deliveries`, headers: auth });
  await call('POST', '/v2/partner/webhooks/{endpoint_id}/messages/{message_id}/redeliver', { url: `/v2/partner/webhooks/${hookId}/messages/${json(hookTest).message_id}/redeliver`, headers: auth });
  await call('DELETE', '/v2/partner/webhooks/{endpoint_id}', { url: `/v2/partner/webhooks/${hookId}`, headers: auth });
  await call('DELETE', '/v2/partner/webhooks/{endpoint_id}', { url: `/v2/partner/webhooks/${hookId}`, headers: auth });

  // Escrow, and the claim link's side.
  const escrowBody = (body: object) => ({ pin: partner.pinHash, contract_address: partner.contractAddress, ...body });
  await call('GET', '/v2/escrow/approve', { url: `/v2/escrow/approve?contract_address=${partner.contractAddress}`, headers: auth });
  await call('POST', '/v2/escrow', { headers: auth, payload: escrowBody({ card_ids: [fourth] }) });
  await call('POST', '/v2/escrow/approve', { headers: auth, payload: escrowBody({}) });
  const deposit = await call('POST', '/v2/escrow', { headers: auth, payload: escrowBody({ card_ids: [fourth] }) });
  assert.equal(deposit.statusCode, 200, deposit.body);
  await call('GET', '/v2/escrow', { url: `/v2/escrow?contract_address=${partner.contractAddress}`, headers: auth });
  const link = new URL(json(deposit).claim_links[0]);
  const claim = { claimId: link.pathname.split('/').pop()!, secret: link.hash.slice(1) };
  await call('POST', '/v2/wallet-app/claims/{claim_id}/view', { url: `/v2/wallet-app/claims/${claim.claimId}/view`, headers: bearer, payload: { secret: claim.secret } });
  await call('POST', '/v2/wallet-app/claims/{claim_id}/claim', { url: `/v2/wallet-app/claims/${claim.claimId}/claim`, headers: bearer, payload: { secret: claim.secret } });
  await call('POST', '/v2/wallet-app/claims/{claim_id}/claim', { url: `/v2/wallet-app/claims/${claim.claimId}/claim`, headers: bearer, payload: { secret: 'd'.repeat(64) } });
  await call('DELETE', '/v2/escrow', { headers: auth, payload: escrowBody({ card_ids: [fourth] }) });

  // The holder's view of a card, and its secure file.
  await indexedToHead(t.services);
  const heldId = (minted.card_ids.at(-1) as number) + 1;
  const held = await call('GET', '/v2/wallet-app/cards/{nft_id}/{card_id}', { url: `/v2/wallet-app/cards/${partner.nftId}/${heldId}`, headers: bearer });
  assert.equal(held.statusCode, 200, held.body);
  const heldFile = await call('GET', '/v2/wallet-app/files/secure/{filename}', { url: `/v2/wallet-app/files/secure/${secureName}`, headers: bearer });
  assert.equal(heldFile.statusCode, 200, heldFile.body);
  await call('GET', '/v2/wallet-app/cards/{nft_id}/{card_id}', { url: `/v2/wallet-app/cards/${partner.nftId}/${heldId}` });
  const cards = await call('GET', '/v2/wallet-app/cards', { headers: bearer });
  assert.equal(cards.statusCode, 200, cards.body);
  await call('GET', '/v2/wallet-app/cards', { url: '/v2/wallet-app/cards?cursor=nonsense', headers: bearer });
  await call('GET', '/v2/wallet-app/cards/{nft_id}', { url: `/v2/wallet-app/cards/${partner.nftId}`, headers: bearer });
  await call('POST', '/v2/wallet-app/cards/{nft_id}/{card_id}/send', {
    url: `/v2/wallet-app/cards/${partner.nftId}/${heldId}/send`,
    headers: bearer,
    payload: { pin: 'c'.repeat(64), to_address: partner.contractAddress },
  });
  await call('GET', '/v2/wallet-app/activity', { headers: bearer });
  await call('GET', '/v2/wallet-app/activity', { url: '/v2/wallet-app/activity?cursor=nonsense', headers: bearer });
  const transfer = { chain: 'main', amount: '0.01', to_address: partner.contractAddress };
  await call('POST', '/v2/wallet-app/transfers/quote', { headers: bearer, payload: transfer });
  await call('POST', '/v2/wallet-app/transfers/quote', { headers: bearer, payload: { ...transfer, amount: '5' } });
  await call('POST', '/v2/wallet-app/transfers', { headers: bearer, payload: { ...transfer, pin: member.pinHash, idempotency_key: 'docs-transfer-1' } });
  await call('POST', '/v2/wallet-app/transfers', { headers: bearer, payload: { ...transfer, pin: 'c'.repeat(64), idempotency_key: 'docs-transfer-2' } });
  await call('GET', '/send', { url: '/send?chain=main' });
  await call('GET', '/receive', { url: '/receive?chain=main' });
  await call('GET', '/cards');
  await call('GET', '/cards/{nft_id}/{card_id}', { url: `/cards/${partner.nftId}/${heldId}` });
  await call('GET', '/cards/{nft_id}/{card_id}/send', { url: `/cards/${partner.nftId}/${heldId}/send` });
  await call('GET', '/activity');

  // Family B and the wallet-app API over one request key.
  const key = await prepareKey(app, { bapp: { name: 'Docs BApp' }, type: 'auth' });
  await call('POST', '/v2/a2a/prepare', { payload: { bapp: { name: 'Docs BApp' }, type: 'sign_message', message: { value: 'hello' } } });
  await call('POST', '/v2/a2a/prepare', { payload: { bapp: {}, type: 'auth' } });
  await call('GET', '/v2/a2a/result', { url: `/v2/a2a/result?request_key=${key}` });
  await call('GET', '/v2/a2a/result', { url: '/v2/a2a/result?request_key=00000000-0000-0000-0000-000000000000' });
  await call('GET', '/v2/a2a/links', { url: `/v2/a2a/links?request_key=${key}&region=global` });
  await call('GET', '/v2/a2a/qr', { url: `/v2/a2a/qr?request_key=${key}` });
  await call('GET', '/v2/a2a/qr', { url: `/v2/a2a/qr?request_key=${key}&format=svg` });
  await call('GET', '/v2/a2a/cards', { url: `/v2/a2a/cards?sca=${partner.contractAddress}&eoa=${member.address}` });
  await call('GET', '/v2/a2a/cards', { url: `/v2/a2a/cards?eoa=${member.address}` });
  await call('GET', '/v2/a2a/chains');
  await call('POST', '/v2/a2a/rpc/{chain}', { url: '/v2/a2a/rpc/main', payload: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } });
  await call('POST', '/v2/a2a/rpc/{chain}', { url: '/v2/a2a/rpc/main', payload: [{ jsonrpc: '2.0', id: 'a', method: 'eth_sendRawTransaction', params: ['0x00'] }] });
  await call('POST', '/v2/a2a/rpc/{chain}', { url: '/v2/a2a/rpc/bitcoin', payload: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } });

  await call('POST', '/v2/wallet-app/sessions', { payload: { email: member.user.email, password: 'e'.repeat(64) } });
  await call('GET', '/v2/wallet-app/me', { headers: bearer });
  await call('GET', '/v2/wallet-app/me');
  await call('GET', '/v2/wallet-app/phone-countries');
  await call('GET', '/v2/wallet-app/a2a/requests/{request_key}', { url: `/v2/wallet-app/a2a/requests/${key}`, headers: bearer });
  await call('POST', '/v2/wallet-app/a2a/requests/{request_key}/open', { url: `/v2/wallet-app/a2a/requests/${key}/open`, headers: bearer });
  const approved = await call('POST', '/v2/wallet-app/a2a/requests/{request_key}/approve', { url: `/v2/wallet-app/a2a/requests/${key}/approve`, headers: bearer, payload: { pin: member.pinHash } });
  assert.equal(approved.statusCode, 200, approved.body);
  await call('GET', '/v2/a2a/result', { url: `/v2/a2a/result?request_key=${key}` });
  const other = await prepareKey(app, { bapp: { name: 'Docs BApp' }, type: 'auth' });
  await call('POST', '/v2/wallet-app/a2a/requests/{request_key}/cancel', { url: `/v2/wallet-app/a2a/requests/${other}/cancel`, headers: bearer });
  await call('POST', '/v2/wallet-app/a2a/requests/{request_key}/cancel', { url: `/v2/wallet-app/a2a/requests/${other}/cancel`, headers: bearer });
  // The member's account: sign-up, PIN, home, test coins, sessions.
  const signUp = { name: 'Docs Member', phone: '+14155550199', email: 'docs-member@example.com', password: 'a'.repeat(64), birth: '1990-01-01', pin: 'b'.repeat(64) };
  await call('POST', '/v2/wallet-app/members', { payload: signUp });
  await call('POST', '/v2/wallet-app/members', { payload: { ...signUp, email: 'docs-other@example.com', birth: '1990-02-30' } });
  await call('GET', '/v2/wallet-app/me/pin', { headers: bearer });
  await call('PUT', '/v2/wallet-app/me/pin', { headers: bearer, payload: { old_pin: 'c'.repeat(64), new_pin: 'd'.repeat(64) } });
  await call('GET', '/v2/wallet-app/home', { headers: bearer });
  await call('POST', '/v2/wallet-app/home/other-chains', { headers: bearer, payload: { pin: member.pinHash } });
  await call('POST', '/v2/wallet-app/faucet', { headers: bearer, payload: { chain: 'main' } });
  await call('POST', '/v2/wallet-app/faucet', { headers: bearer, payload: { chain: 'polygon' } });
  await call('GET', '/v2/wallet-app/sessions', { headers: bearer });
  await call('GET', '/v2/wallet-app/sessions/current', { headers: bearer });
  await call('GET', '/v2/wallet-app/sessions/current');
  await call('DELETE', '/v2/wallet-app/sessions/{session_id}', { url: '/v2/wallet-app/sessions/not-a-session', headers: bearer });
  await call('DELETE', '/v2/wallet-app/sessions/current', { headers: bearer });
  await call('DELETE', '/v2/wallet-app/sessions', { headers: bearer });
  await walletApp(app, member.token, 'GET', '/v2/wallet-app/me').then((response) => checkAnswer('GET', '/v2/wallet-app/me', response));

  const missed = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((method) => ![...answered].some((entry) => entry.startsWith(`${method.toUpperCase()} ${path} `)))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
  assert.deepEqual(missed, [], 'operations no recorded request reached');
});
