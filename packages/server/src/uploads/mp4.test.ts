import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { claimedKinds } from './formats.ts';
import { readMp4Summary } from './mp4.ts';
import { parseRange } from './serve.ts';
import { buildMp4 } from './testing/media.ts';

const directory = mkdtempSync(join(tmpdir(), 'wallet-mp4-'));
after(() => rmSync(directory, { recursive: true, force: true }));

async function summaryOf(bytes: Buffer) {
  const path = join(directory, `${Math.random().toString(36).slice(2)}.mp4`);
  writeFileSync(path, bytes);
  return readMp4Summary(path);
}

test('readMp4Summary reads codecs and sizes from the movie box, wherever it is', async () => {
  assert.deepEqual(await summaryOf(buildMp4({ codec: 'avc1', width: 1920, height: 1080 })), { videoCodecs: ['avc1.640033'], width: 1920, height: 1080 });
  assert.deepEqual(await summaryOf(buildMp4({ codec: 'hvc1', width: 640, height: 360, moov: 'last', mediaBytes: 3_000_000 })), {
    videoCodecs: ['hvc1.1.6.L93'],
    width: 640,
    height: 360,
  });
  assert.deepEqual(await summaryOf(buildMp4({ withoutVideoTrack: true })), { videoCodecs: [], width: 0, height: 0 });
});

test('readMp4Summary answers undefined without a complete movie box or for other bytes', async () => {
  assert.equal(await summaryOf(buildMp4({ moov: 'missing' })), undefined);
  const whole = buildMp4({ moov: 'last' });
  assert.equal(await summaryOf(whole.subarray(0, whole.length - 40)), undefined);
  assert.equal(await summaryOf(Buffer.from('definitely not an mp4 file at all')), undefined);
  assert.equal(await summaryOf(Buffer.alloc(0)), undefined);
});

test('claimedKinds reads the kind a client claims from the name and the part type', () => {
  assert.deepEqual(claimedKinds('clip.MP4', 'application/octet-stream'), ['video']);
  assert.deepEqual(claimedKinds('photo.jpeg', 'image/jpeg'), ['image', 'image']);
  assert.deepEqual(claimedKinds('blob', 'application/octet-stream'), []);
  assert.deepEqual(claimedKinds(undefined, 'video/mp4'), ['video']);
  assert.deepEqual(claimedKinds('picture.png', 'video/mp4'), ['image', 'video']);
});

test('parseRange accepts one satisfiable byte range', () => {
  assert.deepEqual(parseRange('bytes=0-9', 100), { start: 0, end: 9 });
  assert.deepEqual(parseRange('bytes=90-', 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange('bytes=-5', 100), { start: 95, end: 99 });
  assert.deepEqual(parseRange('bytes=50-500', 100), { start: 50, end: 99 });
  for (const header of [undefined, 'bytes=100-', 'bytes=9-0', 'bytes=-0', 'bytes=0-1,5-6', 'items=0-1', 'bytes=-']) {
    assert.equal(parseRange(header, 100), undefined, String(header));
  }
});
