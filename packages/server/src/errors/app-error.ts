import { errorCodes, type ErrorCode } from './codes.ts';

/**
 * An error with a stable code from the registry. Route handlers and commands throw it; the error
 * handler turns it into the body of the API family that was called.
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly httpStatus: number;
  /** Extra detail for the caller (e.g. which argument mismatched the ABI); the registry message stays the `err`. */
  readonly detail: string | undefined;
  /** The request field the error is about, as a path ("body/transaction/to"), where the answer names it. */
  readonly field: string | undefined;

  constructor(code: ErrorCode, options: { detail?: string; field?: string; cause?: unknown } = {}) {
    const entry = errorCodes[code];
    super(options.detail ? `${entry.message}: ${options.detail}` : entry.message, { cause: options.cause });
    this.code = code;
    this.httpStatus = entry.http;
    this.detail = options.detail;
    this.field = options.field;
  }

  /** The `{ code, err }` body shared by Family A and the bare Family B errors. */
  toBody(): { code: number; err: string } {
    return { code: this.code, err: errorCodes[this.code].message };
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** A request refused before any work (schema validation, a malformed body, a 4xx from Fastify): the registry's 400. */
export function isRefusedRequest(error: unknown): boolean {
  const status = (error as { statusCode?: number }).statusCode;
  return Boolean((error as { validation?: unknown }).validation || (status && status >= 400 && status < 500));
}

/** Longest `message` a refused request gets back. */
const REFUSAL_MESSAGE_LIMIT = 300;

/**
 * The registry's 400 body with `message` saying what was refused: for a schema violation Fastify
 * names the part and the field ("body/pin must match pattern ..."), for a check in a command its
 * detail ("isAll cannot be used with cursor"). `code` and `err` are the specification's body;
 * clients that read only those are unaffected. Only the first line is kept: a detail can quote a
 * node's multi-line error.
 */
export function refusedRequestBody(error: unknown): { code: 400; err: string; message?: string } {
  const text = isAppError(error) ? error.detail : error instanceof Error ? error.message : undefined;
  const message = text?.split('\n', 1)[0]!.slice(0, REFUSAL_MESSAGE_LIMIT);
  return { code: 400, err: errorCodes[400].message, ...(message ? { message } : {}) };
}
