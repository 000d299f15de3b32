import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { errorCodes, errorNames, Errors } from './codes.ts';
import { AppError } from './app-error.ts';

test('docs/errors.md lists exactly the registry, with the same HTTP status and message', () => {
  const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
  const documented = new Map<number, { name: string; http: number; message: string }>();
  for (const match of doc.matchAll(/^\| (\d+) \| (\w+) \| (\d+) \| ([^|]+) \|/gm)) {
    documented.set(Number(match[1]), { name: match[2]!, http: Number(match[3]), message: match[4]!.trim() });
  }
  const registry = new Map(
    Object.entries(errorCodes).map(([code, entry]) => [Number(code), { name: errorNames[Number(code) as keyof typeof errorCodes], http: entry.http, message: entry.message }]),
  );
  assert.deepEqual(documented, registry);
});

test('every code has exactly one name, and every name one code', () => {
  const codes = Object.keys(errorCodes).map(Number).sort();
  assert.deepEqual([...new Set(Object.values(Errors))].sort(), codes);
  assert.equal(Object.keys(Errors).length, codes.length);
});

test('no call site names an error by a bare number', async () => {
  const { readdirSync } = await import('node:fs');
  const root = new URL('../', import.meta.url);
  const offenders: string[] = [];
  for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
    const source = readFileSync(new URL(entry, root), 'utf8');
    for (const match of source.matchAll(/new (?:AppError|RequestKeyError)\(\d+|super\(\d+\)/g)) offenders.push(`${entry}: ${match[0]}`);
  }
  assert.deepEqual(offenders, []);
});

test('AppError carries the registry status and body, with detail kept out of err', () => {
  const error = new AppError(6408, { detail: 'argument amount: expected uint256' });
  assert.equal(error.httpStatus, 400);
  assert.deepEqual(error.toBody(), { code: 6408, err: 'invalid params' });
  assert.equal(error.message, 'invalid params: argument amount: expected uint256');
  assert.equal(new AppError(4001).httpStatus, 401);
});
