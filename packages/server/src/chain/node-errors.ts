import { BaseError, HttpRequestError, MethodNotFoundRpcError, MethodNotSupportedRpcError, SocketClosedError, TimeoutError, WebSocketRequestError } from 'viem';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

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

/** The node does not have the method asked (JSON-RPC -32601 or -32004): asking again will not help. */
export function isMethodUnknown(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(error.walk((cause) => cause instanceof MethodNotFoundRpcError || cause instanceof MethodNotSupportedRpcError));
}

/** How nodes word an answer from a state they are changing (see isNodeUnsettled). */
const UNSETTLED = /BlockOutOfRange|block height is \d+ but requested was \d+|header not found/i;

/**
 * The node answered, but from a chain it was changing under the call: a reorganisation under way
 * (anvil: "block height is 732 but requested was 733" for `latest`; geth: "header not found" for a
 * block it has just dropped). Nothing was done; asked again a moment later, it answers.
 */
export function isNodeUnsettled(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(error.walk((cause) => cause instanceof Error && UNSETTLED.test(cause.message)));
}

/**
 * A node that stopped answering in the middle of a request, or answered from a chain it was
 * reorganising, is the chain's outage, not a defect:
 * 503 with the registry's body, which callers retry (an operation with an Idempotency-Key answers
 * as the first try would have). Other errors are returned as they are.
 */
export function asNodeOutage<E>(error: E, log: { warn(message: string): void }): E | AppError {
  if (!isNodeUnreachable(error) && !isNodeUnsettled(error)) return error;
  const what = isNodeUnreachable(error) ? 'did not answer' : 'answered from a chain it was reorganising';
  log.warn(`a chain's node ${what}: ${(error as Error).message.split('\n')[0]}`);
  return new AppError(Errors.ServiceUnavailable, { detail: `a chain's node ${what}; try again shortly`, cause: error });
}
