import assert from 'node:assert/strict';
import { AppError } from '../errors/app-error.ts';

let phoneSequence = 0;

/** A valid US number in E.164 (`+1415xxxxxxx`), different at every call of a test process. */
export function freshPhone(): string {
  phoneSequence += 1;
  return `+1415${String(2_000_000 + ((process.pid * 97 + phoneSequence * 7919) % 7_000_000)).padStart(7, '0')}`;
}

/** A `+1415xxxxxxx` number as a person would type it: `(415) xxx-xxxx`. */
export function typedPhone(e164: string): string {
  return `(415) ${e164.slice(5, 8)}-${e164.slice(8)}`;
}

/** For assert.rejects / assert.throws: an AppError with this code. */
export function refusedWith(code: number) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError ${code}, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  };
}
