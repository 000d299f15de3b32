/** `wallet-service serve` as a child process, for tests that kill, restart or share a running service. */
import { spawn, type ChildProcess } from 'node:child_process';

/** The CLI on the compiled build, dist/ (what `npm start` and the installed command run). */
export const WALLET_SERVICE_COMPILED_BIN = new URL('../../bin/wallet-service.js', import.meta.url).pathname;
/**
 * The CLI the tests start as a child process: the compiled build when `npm test` has just built it
 * from these sources (it sets WALLET_TEST_COMPILED=1; a child then starts in a tenth of the time,
 * with no TypeScript to load), else the sources through tsx, so a test file run on its own runs
 * the code as it is, with no build.
 */
export const WALLET_SERVICE_BIN =
  process.env.WALLET_TEST_COMPILED === '1' ? WALLET_SERVICE_COMPILED_BIN : new URL('../../bin/wallet-service-tsx.js', import.meta.url).pathname;

/**
 * Starts `wallet-service serve` with `env` (`bin`: the sources by default) and resolves with its
 * address (and what it wrote) once it listens. One that does not listen within `timeoutMs` is killed, so a failed start
 * leaves no process behind.
 */
export async function startService(
  env: NodeJS.ProcessEnv,
  options: { bin?: string; timeoutMs?: number } = {},
): Promise<{ service: ChildProcess; baseUrl: string; /** What it wrote until it listened. */ output: string }> {
  // Generous: a busy machine (load 8 to 20 on two cores) takes minutes to start a service and its nodes.
  const { bin = WALLET_SERVICE_BIN, timeoutMs = 240_000 } = options;
  const child = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}):\n${output}`));
    });
  });
  return { service: child, baseUrl, output };
}

/** Stops the service (SIGINT, then SIGKILL after 20 s). */
export async function stopService(child: ChildProcess | undefined): Promise<void> {
  // A child killed by a signal has a signalCode and no exitCode: it will never exit again.
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** A Family A call to a service process over HTTP: its status, headers and JSON body. */
export async function partnerCall(baseUrl: string, token: string | undefined, method: string, path: string, body?: object, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, any> };
}
