/**
 * The prompt of secrets.ts on a real terminal: `script` gives the CLI a pseudo-terminal, so it asks
 * for the password and PIN with no echo (twice, for a new account) and stores what was typed.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../store/database.ts';
import { sha256Hex, verifyPassword } from '../custody/passwords.ts';
import { WALLET_SERVICE_BIN as BIN } from '../testing/service-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'wallet-secrets-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** Runs the CLI on a terminal, answering each prompt (`Password: `, …) once it is shown; resolves to what the terminal showed. */
function onTerminal(args: string[], answers: Array<[prompt: string, answer: string]>): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, WALLET_DATA_DIR: dataDir, WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off', LOG_LEVEL: 'error' };
  delete env.DATABASE_URL;
  delete env.WALLET_PASSWORD;
  delete env.WALLET_PIN;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let answered = 0;
  let from = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    // Each prompt is answered once it appears after the one answered before.
    for (let at: number; answered < answers.length && (at = screen.indexOf(answers[answered]![0], from)) >= 0; answered++) {
      from = at + answers[answered]![0].length;
      child.stdin.write(`${answers[answered]![1]}\r`);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return new Promise((resolve) => child.once('exit', (code) => {
    clearTimeout(timer);
    resolve({ code, screen });
  }));
}

const member = ['user', 'create', '--name', 'Tao Member', '--phone', '+1 415 555 0171', '--email', 'tao@example.com', '--birth', '1989-03-04', '--json'];

test('with no secret given, a terminal is asked for the password and PIN with no echo, twice, and what was typed is stored', { skip: !hasScript && 'no `script` command for a pseudo-terminal' }, async () => {
  const run = await onTerminal(member, [
    ['Password: ', 'Violet-Canyon-Drum-36'],
    ['Password again: ', 'Violet-Canyon-Drum-36'],
    ['PIN: ', '604817'],
    ['PIN again: ', '604817'],
  ]);
  assert.equal(run.code, 0, run.screen);
  assert.ok(!run.screen.includes('Violet-Canyon') && !run.screen.includes('604817'), `echoed:\n${run.screen}`);
  const store = await openStore({ databaseUrl: undefined, sqlitePath: join(dataDir, 'wallet.sqlite') });
  try {
    const row = await store.db.selectFrom('users').select('password_hash').where('email', '=', 'tao@example.com').executeTakeFirstOrThrow();
    assert.ok(await verifyPassword(sha256Hex('Violet-Canyon-Drum-36'), row.password_hash), 'the password typed is the one stored');
  } finally {
    await store.close();
  }
});

test('a prompt answered with a weak PIN is refused with 4010; two different answers are refused', { skip: !hasScript && 'no `script` command for a pseudo-terminal' }, async () => {
  const other = member.map((part) => part.replace('tao@', 'uma@').replace('0171', '0173'));
  const weak = await onTerminal(other, [
    ['Password: ', 'Violet-Canyon-Drum-36'],
    ['Password again: ', 'Violet-Canyon-Drum-36'],
    ['PIN: ', '121212'],
    ['PIN again: ', '121212'],
  ]);
  assert.notEqual(weak.code, 0);
  assert.match(weak.screen, /wallet-service: error 4010: pin is too easy to guess/);
  const differ = await onTerminal(other, [
    ['Password: ', 'Violet-Canyon-Drum-36'],
    ['Password again: ', 'Violet-Canyon-Drum-37'],
  ]);
  assert.notEqual(differ.code, 0);
  assert.match(differ.screen, /wallet-service: the two passwords differ/);
});
