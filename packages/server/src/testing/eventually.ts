/**
 * Asks `probe` every 50 ms until it answers a value other than undefined, and resolves with it. A
 * probe that throws is asked again (a row not written yet, a node restarting); past `timeoutMs` it
 * fails naming `what` and the last error.
 */
export async function eventually<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (${String(last)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
