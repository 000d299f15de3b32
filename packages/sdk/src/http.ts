import type { A2aError, RequestErrorState } from './types.ts';

/** One JSON answer of the service: the body on success, the normalised error otherwise. */
export type Answer<T> = { ok: true; body: T } | { ok: false; error: A2aError | RequestErrorState };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The service's error bodies as one shape: the keyed body of a request in error
 * (`{ request_key, expiration_time, status: "error", error: { code, err, message } }`) gets `err`,
 * `code` and `message` beside it; the bare `{ code, err }` keeps the detail of `error.message`
 * (a prepare refusal's field, 6414's revert reason) as `message`; anything else (a proxy's page, an empty 500) becomes
 * `{ code: <HTTP status>, err }`.
 */
export function toError(httpStatus: number, body: unknown): A2aError | RequestErrorState {
  if (isObject(body) && body.status === 'error' && isObject(body.error) && typeof body.error.code === 'number') {
    const error = body.error as { code: number; err?: unknown; message?: unknown };
    const err = typeof error.err === 'string' ? error.err : 'request failed';
    const message = typeof error.message === 'string' ? error.message : err;
    return {
      request_key: String(body.request_key),
      expiration_time: Number(body.expiration_time),
      status: 'error',
      err,
      code: error.code,
      message,
      error: { code: error.code, err, message },
    };
  }
  if (isObject(body) && typeof body.code === 'number' && typeof body.err === 'string') {
    const detail = isObject(body.error) && typeof body.error.message === 'string' ? body.error.message : undefined;
    const message = detail ?? (typeof body.message === 'string' ? body.message : undefined);
    return { err: body.err, code: body.code, ...(message !== undefined ? { message } : {}) };
  }
  return { err: httpStatus >= 500 ? 'internal server error' : `HTTP ${httpStatus}`, code: httpStatus };
}

/**
 * Sends one request and reads its JSON. Resolves with the body or the normalised error; rejects
 * only when the service cannot be reached or the signal aborts (as fetch does).
 */
export async function callService<T>(
  fetcher: typeof fetch,
  url: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal } = {},
): Promise<Answer<T>> {
  const response = await fetcher(url, {
    method: init.method ?? 'GET',
    headers: init.body !== undefined ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.ok && isObject(body)) return { ok: true, body: body as T };
  return { ok: false, error: toError(response.status, body) };
}
