import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { maskPhone, openMessenger, OutboxMessenger, WebhookMessenger } from './index.ts';

const to = { name: 'Kim Lee', phone: '+14155550123' };

function failsWith501(error: unknown): boolean {
  assert.ok(error instanceof AppError, `expected AppError 501, got ${String(error)}`);
  assert.equal(error.code, 501);
  assert.equal(error.httpStatus, 500);
  assert.deepEqual(error.toBody(), { code: 501, err: 'fail to send messenger message' });
  return true;
}

test('maskPhone hides the middle digits', () => {
  assert.equal(maskPhone('+14155550123'), '+141*****123');
  assert.equal(maskPhone('+8223123456'), '+82******56');
  assert.equal(maskPhone('+1234'), '+1**4');
});

describe('outbox messenger', () => {
  let services: TestServices;
  before(async () => {
    services = await openTestServices();
  });
  after(() => services?.cleanup());

  test('is the default: a message is one messenger_messages row and one log line without the full phone', async () => {
    assert.ok(services.messenger instanceof OutboxMessenger);
    const lines: string[] = [];
    const messenger = new OutboxMessenger(services.store.db, { info: (line) => lines.push(line) });
    await messenger.send({ to, kind: 'invite', text: 'hello' });
    const rows = await services.store.db.selectFrom('messenger_messages').selectAll().where('to_phone', '=', to.phone).execute();
    assert.equal(rows.length, 1);
    assert.deepEqual({ ...rows[0], id: undefined, created_at: undefined }, {
      id: undefined,
      kind: 'invite',
      to_name: 'Kim Lee',
      to_phone: '+14155550123',
      text: 'hello',
      created_at: undefined,
    });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /\+141\*\*\*\*\*123/);
    // The message's id is random and may hold any digits: only the rest of the line must not.
    const withoutId = lines[0]!.replace(String(rows[0]!.id), '');
    assert.ok(!withoutId.includes(to.phone) && !withoutId.includes('5550'), lines[0]);
  });
});

describe('webhook messenger', () => {
  let server: Server;
  let url: string;
  const received: Array<{ path: string; type: string | undefined; body: unknown }> = [];
  let answer: (request: IncomingMessage) => { status: number; delayMs?: number } = () => ({ status: 204 });

  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', type: request.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        const { status, delayMs = 0 } = answer(request);
        setTimeout(() => response.writeHead(status).end(), delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/messages`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('the config selects it; a message is POSTed as JSON', async () => {
    const messenger = openMessenger({ kind: 'webhook', url }, { db: undefined as never, log: { info: () => undefined } });
    assert.ok(messenger instanceof WebhookMessenger);
    answer = () => ({ status: 204 });
    received.length = 0;
    await messenger.send({ to, kind: 'invite', text: 'hello' });
    assert.equal(received.length, 1);
    const [{ path, type, body }] = received as [(typeof received)[0]];
    assert.equal(path, '/hooks/messages');
    assert.equal(type, 'application/json');
    const { id, ...rest } = body as { id: string };
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(rest, { kind: 'invite', to: { name: 'Kim Lee', phone: '+14155550123' }, text: 'hello' });
  });

  test('an error status, a redirect, a slow answer or no server give 501', async () => {
    const messenger = new WebhookMessenger(url, { timeoutMs: 300 });
    answer = () => ({ status: 500 });
    await assert.rejects(messenger.send({ to, kind: 'invite', text: 'x' }), failsWith501);
    answer = () => ({ status: 302 });
    await assert.rejects(messenger.send({ to, kind: 'invite', text: 'x' }), failsWith501);
    answer = () => ({ status: 200, delayMs: 1_000 });
    const started = Date.now();
    await assert.rejects(messenger.send({ to, kind: 'invite', text: 'x' }), failsWith501);
    assert.ok(Date.now() - started < 900, 'the timeout cuts the wait');
    answer = () => ({ status: 200 });
    await messenger.send({ to, kind: 'invite', text: 'x' });
    await assert.rejects(new WebhookMessenger('http://127.0.0.1:1/none').send({ to, kind: 'invite', text: 'x' }), failsWith501);
  });
});
