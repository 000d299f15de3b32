import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { App } from '../app.ts';
import { openTestApp, type TestServices } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildMp4, buildPng } from '../uploads/testing/media.ts';
import { uploadBody } from '../uploads/testing/multipart.ts';
import { listFiles } from '../uploads/testing/stored-state.ts';
import { LocalFileStorage, openFileStorage, S3FileStorage, type FileStorage } from './index.ts';
import { startTestS3Server, type TestS3Server } from './testing/s3-server.ts';

let s3: TestS3Server;
const scratch = mkdtempSync(join(tmpdir(), 'wallet-storage-'));

before(async () => {
  s3 = await startTestS3Server();
});
after(async () => {
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The same contract, run against each implementation. */
function storageContract(name: string, open: () => Promise<FileStorage>) {
  describe(`${name} storage`, () => {
    let storage: FileStorage;
    before(async () => {
      storage = await open();
    });
    after(async () => {
      await storage?.close();
    });

    test('put from a file and from bytes, get whole and in ranges, exists, delete', async () => {
      const source = join(scratch, `${name}-source.bin`);
      const bytes = Buffer.from(Array.from({ length: 5000 }, (_, index) => index % 251));
      writeFileSync(source, bytes);
      await storage.put('public/from-file.bin', source, { contentType: 'application/octet-stream' });
      await storage.put('secure/from-bytes.bin', Buffer.from('secret bytes'), { contentType: 'text/plain' });

      const whole = await storage.get('public/from-file.bin');
      assert.equal(whole?.contentLength, bytes.length);
      assert.ok((await readAll(whole!.body)).equals(bytes));
      const range = await storage.get('public/from-file.bin', { start: 10, end: 19 });
      assert.equal(range?.contentLength, 10);
      assert.ok((await readAll(range!.body)).equals(bytes.subarray(10, 20)));
      assert.equal((await readAll((await storage.get('secure/from-bytes.bin'))!.body)).toString(), 'secret bytes');

      assert.equal(await storage.exists('public/from-file.bin'), true);
      assert.equal(await storage.exists('public/missing.bin'), false);
      assert.equal(await storage.get('public/missing.bin'), undefined);

      // Replacing is whole; deleting twice is fine.
      await storage.put('public/from-file.bin', Buffer.from('replaced'), { contentType: 'text/plain' });
      assert.equal((await readAll((await storage.get('public/from-file.bin'))!.body)).toString(), 'replaced');
      await storage.delete('public/from-file.bin');
      await storage.delete('public/from-file.bin');
      assert.equal(await storage.exists('public/from-file.bin'), false);
      await storage.delete('secure/from-bytes.bin');
    });

    test('keys that could leave the storage root are refused', async () => {
      for (const key of ['../master.key', 'public/../../master.key', '/etc/passwd', 'public/.hidden', 'public//x', 'nokey', 'public/a\\b']) {
        await assert.rejects(storage.put(key, Buffer.from('x'), { contentType: 'text/plain' }), /invalid storage key/, key);
        await assert.rejects(storage.get(key), /invalid storage key/, key);
      }
    });

    test('a failed put leaves nothing under the key', async () => {
      await assert.rejects(storage.put('public/never.bin', join(scratch, 'no-such-file'), { contentType: 'text/plain' }));
      assert.equal(await storage.exists('public/never.bin'), false);
    });
  });
}

storageContract('local', async () => new LocalFileStorage(join(scratch, 'local-files')));
storageContract('S3 (s3rver)', async () => S3FileStorage.open(s3.settings));

test('the local storage keeps no staging file after puts, failed or not', async () => {
  const root = join(scratch, 'staging');
  const storage = new LocalFileStorage(root);
  await storage.put('public/a.bin', Buffer.from('a'), { contentType: 'text/plain' });
  await assert.rejects(storage.put('public/b.bin', join(scratch, 'no-such-file'), { contentType: 'text/plain' }));
  assert.deepEqual(listFiles(root), ['public/a.bin']);
});

test('openFileStorage follows the config', async () => {
  const local = await openFileStorage({ dataDir: scratch, storage: { kind: 'local' } });
  assert.ok(local instanceof LocalFileStorage);
  assert.equal((local as LocalFileStorage).root, join(scratch, 'files'));
  const bucket = await openFileStorage({ dataDir: scratch, storage: { kind: 's3', ...s3.settings, publicBaseUrl: 'https://cdn.example.com/media/' } });
  assert.ok(bucket instanceof S3FileStorage);
  assert.equal(bucket.publicUrl('public/x.png'), 'https://cdn.example.com/media/public/x.png');
  await bucket.close();
});

describe('uploads through the service with S3 storage', () => {
  let services: TestServices;
  let app: App;
  let token: string;
  before(async () => {
    ({ services, app } = await openTestApp({ storage: { kind: 's3', ...s3.settings }, partnerApi: { rateLimit: { max: 100_000, timeWindowMs: 60_000 } } }));
    token = (await signedInPartner(app, services)).token;
  });
  after(async () => {
    await app?.close();
    await services?.cleanup();
  });

  const objectsInBucket = () => listFiles(s3.directory).filter((path) => path.includes('._S3rver_object') && !path.includes('metadata'));

  test('A5 and A6 put objects in the bucket; the service serves them', async () => {
    const image = buildPng({ width: 8, height: 8 });
    const body = uploadBody(image, 'a.png', 'image/png');
    const response = await app.inject({ method: 'POST', url: '/v2/wallet/nftResource', headers: { ...body.headers, authorization: token }, payload: body.payload });
    assert.equal(response.statusCode, 200, response.body);
    const path = new URL(response.json().url).pathname;
    const name = path.split('/').pop()!;
    assert.ok(await services.files.exists(`public/${name}`));
    const served = await app.inject({ method: 'GET', url: path });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.ok(served.rawPayload.equals(image));

    const secureBody = uploadBody(buildMp4(), 'clip.mp4', 'video/mp4');
    const secure = await app.inject({ method: 'POST', url: '/v2/wallet/nftResource/secure', headers: { ...secureBody.headers, authorization: token }, payload: secureBody.payload });
    assert.equal(secure.statusCode, 200, secure.body);
    assert.ok(await services.files.exists(`secure/${secure.json().filename}`));
    // Nothing was written to the data directory.
    assert.deepEqual(listFiles(join(services.config.dataDir, 'files')), []);
  });

  test('a refused upload leaves no object in the bucket', async () => {
    const before = objectsInBucket();
    assert.ok(before.length >= 2, 'the bucket listing sees the objects of the previous test');
    const body = uploadBody(buildMp4({ codec: 'hvc1' }), 'clip.mp4', 'video/mp4');
    const response = await app.inject({ method: 'POST', url: '/v2/wallet/nftResource', headers: { ...body.headers, authorization: token }, payload: body.payload });
    assert.deepEqual(response.json(), { code: 4101, err: 'upload animation file extension is not support' });
    assert.deepEqual(objectsInBucket(), before);
  });
});
