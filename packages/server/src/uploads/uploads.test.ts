import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp, type App } from '../app.ts';
import { openTestApp, type TestServices } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildGif, buildJpeg, buildMp4, buildPng, buildWebp } from './testing/media.ts';
import { multipartBody, uploadBody, type FormPart } from './testing/multipart.ts';
import { storedState } from './testing/stored-state.ts';
import { withoutMessage } from '../testing/responses.ts';

const MiB = 1024 * 1024;
let services: TestServices;
let app: App;
let token: string;
let partnerId: string;

before(async () => {
  ({ services, app } = await openTestApp({
    partnerApi: { rateLimit: { max: 100_000, timeWindowMs: 60_000 } },
    uploads: { maxImageBytes: 2 * MiB },
  }));
  const partner = await signedInPartner(app, services);
  token = partner.token;
  partnerId = partner.partner.id;
});
after(async () => {
  await app?.close();
  await services?.cleanup();
});

type Endpoint = '/v2/wallet/image' | '/v2/wallet/nftResource' | '/v2/wallet/nftResource/secure';

function upload(url: Endpoint, body: { payload: Buffer; headers: Record<string, string> }, authorization: string | null = token) {
  return app.inject({ method: 'POST', url, payload: body.payload, headers: { ...body.headers, ...(authorization ? { authorization } : {}) } });
}

function fileBody(content: Buffer, filename: string, contentType = 'application/octet-stream') {
  return uploadBody(content, filename, contentType);
}

/** Path of a URL the service answered. */
function pathOf(url: string): string {
  return new URL(url).pathname;
}

const UUID_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|png|gif|webp|mp4)$/;

describe('accepted uploads', () => {
  test('A4 stores each image format by its bytes (whatever its name) and serves it with the sniffed type', async () => {
    const images: Array<[Buffer, string, string]> = [
      [buildPng({ width: 640, height: 480 }), 'png', 'image/png'],
      [buildJpeg({ width: 23_000, height: 1_200 }), 'jpg', 'image/jpeg'],
      [buildGif({ width: 12, height: 34 }), 'gif', 'image/gif'],
      [buildWebp({ width: 300, height: 200 }), 'webp', 'image/webp'],
    ];
    for (const [bytes, ext, contentType] of images) {
      // A misleading extension of the same kind and a made-up content type do not matter: the bytes decide.
      const response = await upload('/v2/wallet/image', fileBody(bytes, 'picture.jpeg', 'application/x-anything'));
      assert.equal(response.statusCode, 200, response.body);
      const { image } = response.json();
      assert.deepEqual(Object.keys(response.json()), ['image']);
      assert.ok(image.startsWith(`${services.config.publicUrl}/v2/files/`), image);
      const name = pathOf(image).split('/').pop()!;
      assert.match(name, UUID_NAME);
      assert.ok(name.endsWith(`.${ext}`));

      const served = await app.inject({ method: 'GET', url: pathOf(image) });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], contentType);
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
      assert.equal(served.headers['content-security-policy'], "default-src 'none'; sandbox");
      assert.deepEqual(served.rawPayload, bytes);

      const row = await services.store.db.selectFrom('uploaded_files').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
      assert.equal(row.partner_id, partnerId);
      assert.equal(row.visibility, 'public');
      assert.equal(row.content_type, contentType);
      assert.equal(Number(row.size_bytes), bytes.length);
    }
  });

  test('A5 accepts images and H.264 MP4 (avc1, avc3, movie box last, portrait 4K, exactly 10 MiB) and answers { url }', async () => {
    const tenMiB = buildMp4({ mediaBytes: 1024 });
    const exactlyTenMiB = buildMp4({ mediaBytes: 10 * MiB - (tenMiB.length - 1024) });
    assert.equal(exactlyTenMiB.length, 10 * MiB);
    const files: Array<[Buffer, string]> = [
      [buildMp4({ codec: 'avc1', width: 3840, height: 2160 }), 'mp4'],
      [buildMp4({ codec: 'avc3', width: 1920, height: 1080 }), 'mp4'],
      [buildMp4({ moov: 'last', mediaBytes: 3 * MiB }), 'mp4'],
      [buildMp4({ width: 2160, height: 3840 }), 'mp4'],
      [exactlyTenMiB, 'mp4'],
      [buildPng({ width: 100, height: 100 }), 'png'],
    ];
    for (const [bytes, ext] of files) {
      const response = await upload('/v2/wallet/nftResource', fileBody(bytes, `clip.${ext}`, ext === 'mp4' ? 'video/mp4' : 'image/png'));
      assert.equal(response.statusCode, 200, response.body);
      const { url } = response.json();
      assert.deepEqual(Object.keys(response.json()), ['url']);
      assert.ok(url.endsWith(`.${ext}`));
      const served = await app.inject({ method: 'GET', url: pathOf(url) });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], ext === 'mp4' ? 'video/mp4' : 'image/png');
      assert.equal(Number(served.headers['content-length']), bytes.length);
      assert.ok(served.rawPayload.equals(bytes));
    }
  });

  test('a video is served in byte ranges', async () => {
    const bytes = buildMp4({ mediaBytes: 5000 });
    const response = await upload('/v2/wallet/nftResource', fileBody(bytes, 'clip.mp4', 'video/mp4'));
    const path = pathOf(response.json().url);
    const part = await app.inject({ method: 'GET', url: path, headers: { range: 'bytes=100-199' } });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 100-199/${bytes.length}`);
    assert.ok(part.rawPayload.equals(bytes.subarray(100, 200)));
    const tail = await app.inject({ method: 'GET', url: path, headers: { range: 'bytes=-10' } });
    assert.equal(tail.statusCode, 206);
    assert.ok(tail.rawPayload.equals(bytes.subarray(bytes.length - 10)));
    const unsatisfiable = await app.inject({ method: 'GET', url: path, headers: { range: `bytes=${bytes.length}-` } });
    assert.equal(unsatisfiable.statusCode, 200);
    assert.equal(unsatisfiable.rawPayload.length, bytes.length);
  });

  test('A6 answers <uuid>.<ext>; only the uploading partner reads it, never through the public route', async () => {
    const bytes = buildJpeg({ width: 800, height: 600 });
    const response = await upload('/v2/wallet/nftResource/secure', fileBody(bytes, 'ticket.jpg', 'image/jpeg'));
    assert.equal(response.statusCode, 200, response.body);
    const { filename } = response.json();
    assert.deepEqual(Object.keys(response.json()), ['filename']);
    assert.match(filename, UUID_NAME);
    assert.ok(filename.endsWith('.jpg'));
    const row = await services.store.db.selectFrom('uploaded_files').selectAll().where('name', '=', filename).executeTakeFirstOrThrow();
    assert.equal(row.visibility, 'secure');
    assert.equal(row.storage_key, `secure/${filename}`);

    const own = await app.inject({ method: 'GET', url: `/v2/wallet/nftResource/secure/${filename}`, headers: { authorization: token } });
    assert.equal(own.statusCode, 200);
    assert.equal(own.headers['content-type'], 'image/jpeg');
    assert.equal(own.headers['cache-control'], 'private, no-store');
    assert.ok(own.rawPayload.equals(bytes));

    const other = await signedInPartner(app, services);
    const foreign = await app.inject({ method: 'GET', url: `/v2/wallet/nftResource/secure/${filename}`, headers: { authorization: other.token } });
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(foreign.json(), { code: 404, err: 'not Found' });
    const anonymous = await app.inject({ method: 'GET', url: `/v2/wallet/nftResource/secure/${filename}` });
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(anonymous.json(), { code: 4003, err: 'fail to get authorization in header' });
    const publicRoute = await app.inject({ method: 'GET', url: `/v2/files/${filename}` });
    assert.equal(publicRoute.statusCode, 404);
    assert.deepEqual(publicRoute.json(), { code: 404, err: 'not Found' });
  });

  test('the public route answers 404 for unknown and malformed names', async () => {
    for (const name of ['00000000-0000-4000-8000-000000000000.png', '..%2F..%2Fmaster.key', 'x.png', 'a'.repeat(70)]) {
      const response = await app.inject({ method: 'GET', url: `/v2/files/${name}` });
      assert.equal(response.statusCode, 404, name);
      assert.deepEqual(response.json(), { code: 404, err: 'not Found' });
    }
  });
});

describe('refused uploads: the documented error, and nothing stored', () => {
  const unsupported = { status: 400, body: { code: 4101, err: 'upload animation file extension is not support' } };
  const tooLarge = { status: 400, body: { code: 4100, err: 'upload animation file limit exceeded' } };
  const badRequest = { status: 400, body: { code: 400, err: 'bad request' } };

  const cases: Array<{ name: string; url: Endpoint; body: () => { payload: Buffer; headers: Record<string, string> }; expected: typeof badRequest }> = [
    { name: 'a PNG renamed .mp4', url: '/v2/wallet/nftResource', body: () => fileBody(buildPng({ width: 10, height: 10 }), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'a PNG renamed .mp4 (no content type)', url: '/v2/wallet/nftResource/secure', body: () => fileBody(buildPng({ width: 10, height: 10 }), 'clip.mp4'), expected: unsupported },
    { name: 'an MP4 with an H.265 (hvc1) track', url: '/v2/wallet/nftResource', body: () => fileBody(buildMp4({ codec: 'hvc1' }), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'an MP4 with an H.265 (hev1) track, secure', url: '/v2/wallet/nftResource/secure', body: () => fileBody(buildMp4({ codec: 'hev1' }), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'a 3841x2160 video', url: '/v2/wallet/nftResource', body: () => fileBody(buildMp4({ width: 3841, height: 2160 }), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'a 3840x2161 video', url: '/v2/wallet/nftResource/secure', body: () => fileBody(buildMp4({ width: 3840, height: 2161 }), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'a 23001 px wide image on A6', url: '/v2/wallet/nftResource/secure', body: () => fileBody(buildPng({ width: 23_001, height: 1 }), 'card.png', 'image/png'), expected: unsupported },
    { name: 'a 23001 px high image on A4', url: '/v2/wallet/image', body: () => fileBody(buildJpeg({ width: 10, height: 23_001 }), 'card.jpg', 'image/jpeg'), expected: badRequest },
    { name: 'a 23001 px image on A5', url: '/v2/wallet/nftResource', body: () => fileBody(buildWebp({ width: 23_001, height: 23_001 }), 'card.webp'), expected: unsupported },
    { name: 'a truncated MP4 with no moov box', url: '/v2/wallet/nftResource', body: () => fileBody(buildMp4({ moov: 'missing', mediaBytes: 200_000 }), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'an MP4 without a video track', url: '/v2/wallet/nftResource', body: () => fileBody(buildMp4({ withoutVideoTrack: true }), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'a 12 MiB video', url: '/v2/wallet/nftResource', body: () => fileBody(buildMp4({ mediaBytes: 12 * MiB }), 'clip.mp4', 'video/mp4'), expected: tooLarge },
    { name: 'a 12 MiB video, secure', url: '/v2/wallet/nftResource/secure', body: () => fileBody(buildMp4({ mediaBytes: 12 * MiB }), 'clip.mp4', 'video/mp4'), expected: tooLarge },
    { name: 'a video one byte over 10 MiB', url: '/v2/wallet/nftResource', body: () => fileBody(buildMp4({ mediaBytes: 10 * MiB }), 'clip.mp4', 'video/mp4'), expected: tooLarge },
    { name: 'an image over uploads.maxImageBytes on A4', url: '/v2/wallet/image', body: () => fileBody(Buffer.concat([buildPng({ width: 10, height: 10 }), Buffer.alloc(3 * MiB)]), 'big.png'), expected: badRequest },
    { name: 'an image over uploads.maxImageBytes on A5', url: '/v2/wallet/nftResource', body: () => fileBody(Buffer.concat([buildPng({ width: 10, height: 10 }), Buffer.alloc(3 * MiB)]), 'big.png'), expected: tooLarge },
    { name: 'a video on A4', url: '/v2/wallet/image', body: () => fileBody(buildMp4(), 'clip.mp4', 'video/mp4'), expected: badRequest },
    { name: 'a text file on A4', url: '/v2/wallet/image', body: () => fileBody(Buffer.from('just some text, not media at all\n'.repeat(10)), 'notes.txt', 'text/plain'), expected: badRequest },
    { name: 'a text file', url: '/v2/wallet/nftResource', body: () => fileBody(Buffer.from('just some text, not media at all\n'.repeat(10)), 'notes.txt', 'text/plain'), expected: unsupported },
    { name: 'an SVG', url: '/v2/wallet/image', body: () => fileBody(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'logo.svg', 'image/svg+xml'), expected: badRequest },
    { name: 'a QuickTime movie named .mp4', url: '/v2/wallet/nftResource', body: () => fileBody(quickTime(buildMp4()), 'clip.mp4', 'video/mp4'), expected: unsupported },
    { name: 'an empty file', url: '/v2/wallet/nftResource', body: () => fileBody(Buffer.alloc(0), 'empty.png', 'image/png'), expected: badRequest },
    {
      name: 'two files at once',
      url: '/v2/wallet/nftResource',
      body: () => multipartBody([uploadPart(buildPng({ width: 5, height: 5 })), uploadPart(buildPng({ width: 6, height: 6 }))]),
      expected: badRequest,
    },
    {
      name: 'a file in another field',
      url: '/v2/wallet/image',
      body: () => multipartBody([{ ...uploadPart(buildPng({ width: 5, height: 5 })), name: 'file' }]),
      expected: badRequest,
    },
    {
      name: 'a good file and then one in another field',
      url: '/v2/wallet/image',
      body: () => multipartBody([uploadPart(buildPng({ width: 5, height: 5 })), { ...uploadPart(buildPng({ width: 6, height: 6 })), name: 'extra' }]),
      expected: badRequest,
    },
    { name: 'only text fields', url: '/v2/wallet/image', body: () => multipartBody([{ name: 'upload', content: 'hello' }]), expected: badRequest },
    { name: 'no multipart at all', url: '/v2/wallet/image', body: () => ({ payload: Buffer.from('{"upload":"x"}'), headers: { 'content-type': 'application/json' } }), expected: badRequest },
    {
      name: 'a cut multipart body',
      url: '/v2/wallet/nftResource',
      body: () => {
        const whole = fileBody(buildPng({ width: 5, height: 5 }), 'a.png');
        return { payload: whole.payload.subarray(0, whole.payload.length - 30), headers: whole.headers };
      },
      expected: badRequest,
    },
  ];

  for (const { name, url, body, expected } of cases) {
    test(`${name}: ${expected.body.code}`, async () => {
      const before = await storedState(services);
      const response = await upload(url, body());
      assert.deepEqual({ status: response.statusCode, body: withoutMessage(response.json()) }, expected);
      assert.deepEqual(await storedState(services), before);
      assert.deepEqual(before.temporary, []);
    });
  }

  // 4100 and 4101 are the specification's "upload animation file" codes: the image endpoint takes no
  // videos, so it answers 400 with what it takes instead.
  test('A4 refuses what is not an image it takes with 400 saying what it takes, never an animation code', async () => {
    const refusals = [
      await upload('/v2/wallet/image', fileBody(buildMp4(), 'clip.mp4', 'video/mp4')),
      await upload('/v2/wallet/image', fileBody(Buffer.from('%PDF-1.7\n'.repeat(100)), 'doc.pdf', 'application/pdf')),
    ];
    for (const response of refusals) {
      assert.equal(response.statusCode, 400);
      const body = response.json();
      assert.equal(body.code, 400);
      assert.match(body.message, /this endpoint takes JPEG, PNG, GIF or WebP images$/);
    }
    const tooBig = await upload('/v2/wallet/image', fileBody(Buffer.concat([buildPng({ width: 10, height: 10 }), Buffer.alloc(3 * MiB)]), 'big.png'));
    assert.deepEqual(tooBig.json(), { code: 400, err: 'bad request', message: `images may be at most ${2 * MiB} bytes` });
  });

  test('without a token the upload is refused (4003) before its body is read', async () => {
    const before = await storedState(services);
    const response = await upload('/v2/wallet/image', fileBody(buildPng({ width: 5, height: 5 }), 'a.png'), null);
    assert.deepEqual({ status: response.statusCode, body: response.json() }, { status: 401, body: { code: 4003, err: 'fail to get authorization in header' } });
    assert.deepEqual(await storedState(services), before);
  });
});

describe('a storage failure', () => {
  test('answers 500 and leaves neither a row nor a temporary file', async () => {
    const failing = {
      kind: services.files.kind,
      put: async () => {
        throw new Error('disk full');
      },
      get: services.files.get.bind(services.files),
      delete: services.files.delete.bind(services.files),
      exists: services.files.exists.bind(services.files),
      publicUrl: services.files.publicUrl.bind(services.files),
      close: async () => {},
    };
    const broken = await buildApp({ services: { ...services, files: failing } });
    try {
      const before = await storedState(services);
      const body = fileBody(buildPng({ width: 5, height: 5 }), 'a.png', 'image/png');
      const response = await broken.inject({ method: 'POST', url: '/v2/wallet/image', payload: body.payload, headers: { ...body.headers, authorization: token } });
      assert.deepEqual({ status: response.statusCode, body: response.body }, { status: 500, body: 'failed to upload' });
      assert.deepEqual(await storedState(services), before);
    } finally {
      await broken.close();
    }
  });
});

function uploadPart(content: Buffer): FormPart {
  return { name: 'upload', filename: 'a.png', contentType: 'image/png', content };
}

/** The same movie with the QuickTime brand (`qt  `): the MP4 container, but not an MP4 file. */
function quickTime(mp4: Buffer): Buffer {
  const copy = Buffer.from(mp4);
  copy.write('qt  ', 8, 'latin1');
  return copy;
}
