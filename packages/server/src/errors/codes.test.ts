import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { errorCodes } from './codes.ts';
import { AppError } from './app-error.ts';

test('docs/errors.md lists exactly the registry, with the same HTTP status and message', () => {
  const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
  const documented = new Map<number, { http: number; message: string }>();
  for (const match of doc.matchAll(/^\| (\d+) \| (\d+) \| ([^|]+) \|/gm)) {
    documented.set(Number(match[1]), { http: Number(match[2]), message: match[3]!.trim() });
  }
  const registry = new Map(Object.entries(errorCodes).map(([code, entry]) => [Number(code), { http: entry.http, message: entry.message }]));
  assert.deepEqual(documented, registry);
});

test('AppError carries the registry status and body, with detail kept out of err', () => {
  const error = new AppError(6408, { detail: 'argument amount: expected uint256' });
  assert.equal(error.httpStatus, 400);
  assert.deepEqual(error.toBody(), { code: 6408, err: 'invalid params' });
  assert.equal(error.message, 'invalid params: argument amount: expected uint256');
  assert.equal(new AppError(4001).httpStatus, 401);
});
