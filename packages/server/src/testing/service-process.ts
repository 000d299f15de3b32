/** `wallet-service serve` as a child process, for tests that kill, restart or share a running service. */
import { spawn, type ChildProcess } from 'node:child_process';

export const WALLET_SERVICE_BIN = new URL('../../bin/wallet-service.js', import.meta.url).pathname;

/** Starts `wallet-service serve` with `env` and resolves with its address once it listens. */
export async function startService(env: NodeJS.ProcessEnv): Promise<{ service: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [WALLET_SERVICE_BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 60_000);
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
  return { service: child, baseUrl };
}

/** Stops the service (SIGINT, then SIGKILL after 20 s). */
export async function stopService(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
