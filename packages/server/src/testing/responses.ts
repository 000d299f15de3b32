/**
 * An error body without the `message` a refused request carries (see refusedRequestBody), for
 * comparing `code` and `err` with the registry's pair; tests that care what was refused match
 * `message` on its own.
 */
export function withoutMessage(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const { message: _message, ...rest } = body as Record<string, unknown>;
  return rest;
}
