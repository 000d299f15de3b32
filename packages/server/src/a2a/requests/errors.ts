import { AppError } from '../../errors/app-error.ts';
import { errorCodes, type ErrorCode } from '../../errors/codes.ts';

/** The body of a Family B request that has a key and is in error (expired, or failed when executed). */
export interface KeyedErrorBody {
  request_key: string;
  expiration_time: number;
  status: 'error';
  error: { code: number; err: string; message: string };
}

export function keyedErrorBody(requestKey: string, expirationTime: number, code: number, message?: string | null): KeyedErrorBody {
  const err = (errorCodes as Record<number, { message: string }>)[code]?.message ?? 'internal server error';
  return { request_key: requestKey, expiration_time: expirationTime, status: 'error', error: { code, err, message: message || err } };
}

/** An AppError about one request key, answered with the keyed body instead of the bare one. */
export class RequestKeyError extends AppError {
  constructor(
    code: ErrorCode,
    readonly requestKey: string,
    readonly expirationTime: number,
    options: { detail?: string } = {},
  ) {
    super(code, options);
  }

  toKeyedBody(): KeyedErrorBody {
    return keyedErrorBody(this.requestKey, this.expirationTime, this.code, this.detail);
  }
}
