import type { FastifyReply } from 'fastify';
import { ThrottledError } from './throttle.ts';

/** Runs a command that may be throttled by the wrong-password back-off; a 4008 answer carries Retry-After. */
export async function withRetryAfter<T>(reply: FastifyReply, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof ThrottledError) reply.header('retry-after', String(error.retryAfterSeconds));
    throw error;
  }
}
