import { execFile } from 'node:child_process';

export interface CliResult {
  code: number | null;
  /** The signal that ended it, if one did (a test that makes the CLI kill itself). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI as a child process without blocking the test's event loop. A blocking spawnSync
 * stops the test process from reading a service child's output and from seeing its sockets close.
 */
export function runCli(bin: string, args: string[], options: { env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [bin, ...args], { env: options.env, encoding: 'utf8', timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      const signal = (error?.signal as NodeJS.Signals | undefined) ?? null;
      resolve({ code, signal, stdout: stdout.trim(), stderr: stderr.trim() });
    });
    child.stdin?.end(options.input ?? '');
  });
}
