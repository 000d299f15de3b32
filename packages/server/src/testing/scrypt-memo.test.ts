import assert from 'node:assert/strict';
import crypto, { randomBytes } from 'node:crypto';
import { test } from 'node:test';

// The memo npm test loads into every test process (scripts/test-scrypt-memo.mjs), loaded here on
// top of the real scrypt counted, so that what reaches it shows.
let computed = 0;
const real = crypto.scrypt;
crypto.scrypt = ((...args: Parameters<typeof crypto.scrypt>) => {
  computed += 1;
  return (real as (...a: unknown[]) => void)(...args);
}) as typeof crypto.scrypt;
await import('../../../../scripts/test-scrypt-memo.mjs');
const { scrypt, scryptSync } = crypto;

function derive(password: string | Buffer, salt: Buffer, options: crypto.ScryptOptions = { N: 1024, r: 8, p: 1 }): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, 32, options, (error, key) => (error ? reject(error) : resolve(key))));
}

test('a repeated scrypt gives the same bytes without computing them again; other inputs are computed', async () => {
  const salt = randomBytes(16);
  const first = await derive('a password', salt);
  assert.deepEqual(first, scryptSync('a password', salt, 32, { N: 1024, r: 8, p: 1 }));
  const before = computed;
  first.fill(0); // callers zero what they get: the memo keeps its own copy
  const again = await derive('a password', salt);
  assert.equal(computed, before, 'answered from memory');
  assert.deepEqual(again, scryptSync('a password', salt, 32, { N: 1024, r: 8, p: 1 }));
  assert.deepEqual(await derive(Buffer.from('a password'), salt), again, 'a string and its UTF-8 bytes are one input');

  for (const [password, otherSalt, options] of [
    ['another password', salt, { N: 1024, r: 8, p: 1 }],
    ['a password', randomBytes(16), { N: 1024, r: 8, p: 1 }],
    ['a password', salt, { N: 2048, r: 8, p: 1 }],
    ['a password', salt, { N: 1024, r: 4, p: 1 }],
  ] as const) {
    const counted = computed;
    assert.deepEqual(await derive(password, otherSalt, options), scryptSync(password, otherSalt, 32, options));
    assert.equal(computed, counted + 1, `computed: ${password}, N ${options.N}, r ${options.r}`);
  }
});

test('an error is not remembered', async () => {
  const salt = randomBytes(16);
  const tooBig = { N: 2 ** 20, r: 8, p: 1, maxmem: 1024 };
  await assert.rejects(derive('x', salt, tooBig), /memory limit/);
  const counted = computed;
  await assert.rejects(derive('x', salt, tooBig), /memory limit/);
  assert.equal(computed, counted + 1);
});
