/**
 * Passwords and PINs for the CLI, taken where no other local user can read them: standard input
 * (`--password-stdin`, `--pin-stdin`), the environment (`WALLET_PASSWORD`, `WALLET_PIN`), or a
 * prompt with no echo when standard input is a terminal. `--password P` and `--pin PIN` still
 * work, but a command line is visible in `ps` and kept in shell history.
 */
import { UsageError } from './options.ts';

export type SecretName = 'password' | 'pin';

export const SECRET_ENV: Record<SecretName, string> = { password: 'WALLET_PASSWORD', pin: 'WALLET_PIN' };

type Values = { [name: string]: string | boolean | undefined };

export interface SecretSources {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

const processSources = (): SecretSources => ({ stdin: process.stdin, stderr: process.stderr, env: process.env });

/**
 * Sets `values.password` / `values.pin` for a command that takes `wanted` (in that order on
 * standard input: the password's line first). A secret given twice (`--pin` and `--pin-stdin`) or
 * a `-stdin` flag for a secret the command does not take is a usage error; one found nowhere is
 * asked for on a terminal (twice when `confirm`), or else reported missing.
 */
export async function resolveSecrets(values: Values, wanted: readonly SecretName[], options: { confirm?: boolean; sources?: SecretSources } = {}): Promise<void> {
  const sources = options.sources ?? processSources();
  for (const name of ['password', 'pin'] as const) {
    if (values[`${name}-stdin`] === true && !wanted.includes(name)) throw new UsageError(`--${name}-stdin: this command takes no ${name}`);
    if (values[`${name}-stdin`] === true && values[name] !== undefined) throw new UsageError(`give --${name} or --${name}-stdin, not both`);
  }
  const fromStdin = wanted.filter((name) => values[`${name}-stdin`] === true);
  if (fromStdin.length > 0) {
    const lines = (await readAll(sources.stdin)).split(/\r?\n/);
    for (const [index, name] of fromStdin.entries()) {
      const line = lines[index];
      if (line === undefined || line === '') throw new UsageError(`--${name}-stdin: no ${name} on line ${index + 1} of standard input`);
      values[name] = line;
    }
  }
  for (const name of wanted) {
    if (values[name] !== undefined) continue;
    const fromEnv = sources.env[SECRET_ENV[name]];
    if (fromEnv) {
      values[name] = fromEnv;
      // Not passed on to what this process starts (the embedded chain nodes).
      delete sources.env[SECRET_ENV[name]];
    } else if (sources.stdin.isTTY && fromStdin.length === 0 && sources.stdin.setRawMode) {
      values[name] = await ask(name, sources, options.confirm === true);
    } else {
      throw new UsageError(`missing --${name}-stdin (or ${SECRET_ENV[name]}, or --${name})`);
    }
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk as string;
  return text;
}

async function ask(name: SecretName, sources: SecretSources, confirm: boolean): Promise<string> {
  const label = name === 'pin' ? 'PIN' : 'Password';
  const value = await promptHidden(`${label}: `, sources);
  if (value === '') throw new UsageError(`no ${name} given`);
  if (confirm && (await promptHidden(`${label} again: `, sources)) !== value) throw new UsageError(`the two ${name}s differ`);
  return value;
}

/** One line read from a terminal in raw mode, so nothing typed is echoed; Ctrl-C cancels. */
function promptHidden(question: string, { stdin, stderr }: SecretSources): Promise<string> {
  // Raw mode before the question: an answer typed (or pasted) the moment it shows is not echoed.
  stdin.setRawMode!(true);
  stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: string | Buffer) => {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new UsageError('cancelled'));
          return;
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}
