import { BaseError, HttpRequestError, SocketClosedError, TimeoutError, WebSocketRequestError } from 'viem';

/**
 * The node did not answer (refused, reset, timed out, closed): nothing it was asked was done,
 * unlike a node that answered with an error. Such a call may be tried again once the node is back.
 */
export function isNodeUnreachable(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        cause instanceof WebSocketRequestError ||
        cause instanceof SocketClosedError,
    ),
  );
}
