import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildPartner } from '../testing/factories.ts';
import { openTestApp, type TestApp, type TestServices } from '../testing/test-services.ts';
import { TEST_EVENT, WEBHOOK_EVENTS } from '../webhooks/events.ts';
import { signingSecrets } from '../webhooks/secrets.ts';
import { cliFor } from './testing/run-cli.ts';

/** The operator CLI's webhook commands (docs/cli.md), run through main() against a test installation's store. */
describe('wallet-service webhook commands', () => {
  let testApp: TestApp;
  let services: TestServices;
  let cli: Awaited<ReturnType<typeof cliFor>>['cli'];
  let restore = () => {};
  // A name that never resolves: whatever worker picks up a message records a failed attempt, nothing leaves the machine.
  const url = 'https://hooks.partner.invalid/wallet';

  before(async () => {
    testApp = await openTestApp();
    services = testApp.services;
    ({ cli, restore } = await cliFor(services));
  });
  after(async () => {
    restore();
    await testApp?.cleanup();
  });

  const endpointRow = (id: string) => services.store.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('list, create (secret printed once), rotate-secret, test, deliveries and delete for a partner', async () => {
    const { partner } = await buildPartner(services);
    const email = partner.email;

    const empty = await cli('webhook', 'list', '--email', email);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, 'endpoints: ');

    const created = await cli('webhook', 'create', '--email', email, '--url', url, '--events', 'card.minted, card.sent');
    assert.equal(created.code, 0, created.stderr);
    const [idLine, urlLine, eventsLine, createdLine, previousLine, secretLine, noteLine] = created.stdout.split('\n');
    const id = /^id: (ep_[0-9a-f]{32})$/.exec(idLine!)?.[1];
    assert.ok(id, created.stdout);
    assert.equal(urlLine, `url: ${url}`);
    assert.equal(eventsLine, 'events: card.minted,card.sent');
    assert.match(createdLine!, /^createdAt: \d{13}$/);
    assert.equal(previousLine, 'previousSecretExpiresAt: null');
    const secret = /^secret: (whsec_[A-Za-z0-9+/]+=*)$/.exec(secretLine!)?.[1];
    assert.ok(secret, created.stdout);
    assert.equal(noteLine, 'note: give secret to the partner; it is not shown again');
    const stored = await endpointRow(id);
    assert.equal(stored.partner_id, partner.id);
    assert.equal(stored.url, url);
    assert.deepEqual(JSON.parse(stored.events), ['card.minted', 'card.sent']);
    assert.notEqual(stored.secret, secret, 'sealed at rest');
    assert.deepEqual(await signingSecrets(services, stored, Date.now()), [secret]);
    assert.equal(stored.deleted_at_ms, null);

    // Without --events: every event. Listing never shows a secret.
    const all = JSON.parse((await cli('webhook', 'create', '--email', email, '--url', `${url}/all`, '--json')).stdout) as { id: string; events: string[] };
    assert.deepEqual(all.events, [...WEBHOOK_EVENTS]);
    const listed = await cli('webhook', 'list', '--email', email);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^endpoints:\\n  id=${id} url=${url} events=\\["card.minted","card.sent"\\] createdAt=\\d+ previousSecretExpiresAt=null\\n  id=${all.id} url=${url}/all `));
    assert.doesNotMatch(listed.stdout, /whsec_/);

    const rotated = await cli('webhook', 'rotate-secret', '--email', email, '--endpoint', id, '--overlap', '600');
    assert.equal(rotated.code, 0, rotated.stderr);
    const newSecret = /^secret: (whsec_[A-Za-z0-9+/]+=*)$/m.exec(rotated.stdout)?.[1];
    assert.ok(newSecret && newSecret !== secret, rotated.stdout);
    const until = Number(/^previousSecretExpiresAt: (\d{13})$/m.exec(rotated.stdout)?.[1]);
    assert.ok(until > Date.now(), rotated.stdout);
    // The new secret signs, and the old one beside it for the overlap asked for.
    assert.deepEqual(await signingSecrets(services, await endpointRow(id), Date.now()), [newSecret, secret]);
    assert.deepEqual(await signingSecrets(services, await endpointRow(id), until), [newSecret]);
    assert.equal((await cli('webhook', 'rotate-secret', '--email', email, '--endpoint', id, '--overlap', '604801')).code, 1, 'at most 7 days');

    const queued = await cli('webhook', 'test', '--email', email, '--endpoint', id);
    assert.equal(queued.code, 0, queued.stderr);
    const messageId = /^messageId: (\S+)$/.exec(queued.stdout)?.[1];
    assert.ok(messageId, queued.stdout);
    const message = await services.store.db.selectFrom('webhook_messages').selectAll().where('id', '=', messageId).executeTakeFirstOrThrow();
    assert.equal(message.endpoint_id, id);
    assert.equal(message.event_type, TEST_EVENT);
    assert.equal(JSON.parse(message.payload).type, TEST_EVENT);

    const log = await cli('webhook', 'deliveries', '--email', email, '--endpoint', id, '--json');
    assert.equal(log.code, 0, log.stderr);
    const { messages } = JSON.parse(log.stdout) as { messages: Array<{ id: string; type: string; attemptLog: unknown[] }> };
    assert.deepEqual(messages.map((one) => [one.id, one.type]), [[messageId, TEST_EVENT]]);
    assert.ok(Array.isArray(messages[0]!.attemptLog));
    const text = await cli('webhook', 'deliveries', '--email', email, '--endpoint', id, '--limit', '1');
    assert.match(text.stdout, new RegExp(`^messages:\\n  id=${messageId} type=${TEST_EVENT} status=\\w+ attempts=\\d+ `));

    const deleted = await cli('webhook', 'delete', '--email', email, '--endpoint', id);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, `endpoint: ${id}\ndeleted: true`);
    assert.notEqual((await endpointRow(id)).deleted_at_ms, null, 'kept for its log, marked deleted');
    assert.deepEqual(JSON.parse((await cli('webhook', 'list', '--email', email, '--json')).stdout).endpoints.map((one: { id: string }) => one.id), [all.id]);
    const again = await cli('webhook', 'delete', '--email', email, '--endpoint', id);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `wallet-service: error 404: not Found: no webhook endpoint ${id}`);
    // What changed an endpoint is in the operator's audit log, without the secrets it showed once.
    const audit = await services.store.db
      .selectFrom('operator_audit')
      .selectAll()
      .where('action', 'in', ['webhook create', 'webhook rotate-secret', 'webhook delete'])
      .where('target', '=', email)
      .execute();
    assert.deepEqual(audit.map((entry) => entry.action).sort(), ['webhook create', 'webhook create', 'webhook delete', 'webhook rotate-secret']);
    assert.ok(!JSON.stringify(audit).includes(secret) && !JSON.stringify(audit).includes(newSecret), 'no signing secret in the audit log');
  });

  test('refusals exit 1 with the reason and change nothing: unknown partner, another partner\'s endpoint, a private address', async () => {
    const endpoints = async () => (await services.store.db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n;
    const before = Number(await endpoints());

    const unknown = await cli('webhook', 'create', '--email', 'nobody@example.com', '--url', url);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.equal(unknown.stderr, 'wallet-service: error 406: not found user info in db');
    assert.equal((await cli('webhook', 'list', '--email', 'nobody@example.com')).stderr, 'wallet-service: error 406: not found user info in db');

    const { partner } = await buildPartner(services);
    const missingUrl = await cli('webhook', 'create', '--email', partner.email);
    assert.equal(missingUrl.code, 1);
    assert.match(missingUrl.stderr, /--url/);

    for (const privateUrl of ['http://127.0.0.1:8080/hooks', 'http://10.1.2.3/hooks', 'http://[::1]/hooks', 'http://localhost:3000/hooks']) {
      const refused = await cli('webhook', 'create', '--email', partner.email, '--url', privateUrl);
      assert.equal(refused.code, 1, privateUrl);
      assert.equal(refused.stdout, '', privateUrl);
      assert.equal(refused.stderr, 'wallet-service: error 400: bad request: url must be on a public address', privateUrl);
    }
    assert.equal(Number(await endpoints()), before);

    // Another partner's endpoint is not found for this one.
    const other = await buildPartner(services);
    const theirs = JSON.parse((await cli('webhook', 'create', '--email', other.partner.email, '--url', url, '--json')).stdout) as { id: string };
    for (const command of [['rotate-secret'], ['test'], ['deliveries'], ['delete']]) {
      const refused = await cli('webhook', ...command, '--email', partner.email, '--endpoint', theirs.id);
      assert.equal(refused.code, 1, command[0]);
      assert.equal(refused.stderr, `wallet-service: error 404: not Found: no webhook endpoint ${theirs.id}`, command[0]);
    }
    assert.equal((await endpointRow(theirs.id)).deleted_at_ms, null);

    // With webhooks.allowPrivateAddresses on, the same private URL is taken.
    const config = join(services.config.dataDir, 'allow-private.json');
    writeFileSync(config, JSON.stringify({ webhooks: { allowPrivateAddresses: true } }));
    const allowed = await cli('webhook', 'create', '--email', partner.email, '--url', 'http://127.0.0.1:8080/hooks', '--config', config, '--json');
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal((JSON.parse(allowed.stdout) as { url: string }).url, 'http://127.0.0.1:8080/hooks');
  });
});
