// Loaded into every test process by run-tests.mjs (node --import). scrypt is a pure function of its
// inputs, and a test process asks for the same one again and again: a password hashed when an
// account is made is hashed again at each sign-in with the same salt, a PIN key sealed at its
// creation is opened with the same PIN and salt at each use. At the service's cost (N = 2^15, about
// 120 ms of CPU) that was a third of a test file's CPU. Here an answer computed once in this process
// is given again for the same inputs (a copy: callers zero what they get); every other call, a
// wrong PIN or a fresh salt among them, runs scrypt as it is. The parameters and the bytes are the
// service's own, so keys and hashes made here open in the service's child processes and the other
// way round.
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

const scrypt = crypto.scrypt;
const answers = new Map();

const bytesOf = (value) => (typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength));

crypto.scrypt = function memoizedScrypt(password, salt, keylen, options, callback) {
  if (typeof options === 'function') [options, callback] = [{}, options];
  const { N, r, p, cost, blockSize, parallelization } = options ?? {};
  const key = [bytesOf(password).toString('base64'), bytesOf(salt).toString('base64'), keylen, N ?? cost, r ?? blockSize, p ?? parallelization].join('|');
  const known = answers.get(key);
  if (known) {
    process.nextTick(callback, null, Buffer.from(known));
    return;
  }
  scrypt(password, salt, keylen, options, (error, derived) => {
    if (!error) answers.set(key, Buffer.from(derived));
    callback(error, derived);
  });
};
syncBuiltinESMExports();
