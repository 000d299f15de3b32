import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

/**
 * Deepest nesting of JSON text that arrives inside a body (B1's `abi`, `params` and typed data may
 * be sent as JSON text): the same default as `http.maxJsonDepth` for bodies.
 */
export const MAX_JSON_TEXT_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, read in one pass without
 * parsing (brackets inside strings are skipped). JSON.parse itself copes with any depth but takes
 * its time (a 1 MiB body of brackets is half a million levels), and what reads the value after it
 * (serializing, logging, walking it) recurses: so depth is refused before parsing.
 */
export function jsonNestingExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b || char === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (char === 0x5d || char === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** How deeply a parsed value nests arrays and objects, walked without recursion; stops counting past `limit`. */
export function nestingOf(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const each of Object.values(current)) pending.push([each, inner]);
  }
  return deepest;
}

/**
 * The JSON text of a value the service is about to store, refused (the registry's 400, naming the
 * bound) when it nests deeper than `maxDepth` or serializes to more than `maxBytes`.
 *
 * @example
 * storableJson(action, { what: 'the request', maxDepth: 64, maxBytes: 262_144 }); // '{"type":…}'
 */
export function storableJson(value: unknown, bounds: { what: string; maxDepth: number; maxBytes: number }): string {
  if (nestingOf(value, bounds.maxDepth) > bounds.maxDepth) {
    throw new AppError(Errors.BadRequest, { detail: `${bounds.what} is nested deeper than ${bounds.maxDepth} levels (arrays and objects)` });
  }
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > bounds.maxBytes) {
    throw new AppError(Errors.BadRequest, { detail: `${bounds.what} is larger than ${bounds.maxBytes} bytes as JSON` });
  }
  return text;
}
