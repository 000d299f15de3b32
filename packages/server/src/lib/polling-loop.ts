/**
 * Runs a pass every `intervalMs` until stopped, or at once when kicked (a kick during a pass runs
 * another right after it). A failing pass is reported and the loop goes on.
 *
 * @example
 * const loop = new PollingLoop(() => trackReceipts(), 200, (error) => log.warn(error.message));
 * loop.start();
 * loop.kick(); // something changed: look now
 * await loop.stop();
 */
export class PollingLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private kicked = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: Error) => void,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Ends the loop after the pass in progress, if any. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.kicked = false;
      try {
        await this.pass();
      } catch (error) {
        this.onError(error as Error);
      }
      if (!this.running) break;
      if (this.kicked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.intervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
