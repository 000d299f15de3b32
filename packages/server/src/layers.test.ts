import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

// The import rules of docs/architecture.md, checked on the source: no import circle between files,
// no folder importing from a folder that imports it back, no query outside store modules, and no
// command taking the whole set of services.

const root = dirname(new URL(import.meta.url).pathname);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = sourceFiles(root);
const known = new Set(files);
const imports = new Map(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name))
      .filter((target) => known.has(target));
    return [file, targets] as const;
  }),
);
const name = (file: string) => relative(root, file);
/** Test support builds whole apps: it sits above everything and is left out of the folder rule. */
const isTestSupport = (file: string) => /(^|\/)testing\//.test(name(file));

test('no import circle between the server source files', () => {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const circles: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of imports.get(file)!) {
      if (state.get(target) === 'open') circles.push([...path.slice(path.indexOf(target)), target].map(name).join(' -> '));
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  assert.deepEqual(circles, []);
});

test('no folder imports from a folder that imports it back', () => {
  const folderOf = (file: string) => dirname(name(file));
  const edges = new Map<string, string>();
  for (const [file, targets] of imports) {
    if (isTestSupport(file)) continue;
    for (const target of targets) {
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from !== to && !edges.has(`${from} -> ${to}`)) edges.set(`${from} -> ${to}`, `${name(file)} -> ${name(target)}`);
    }
  }
  const mutual = [...edges.keys()]
    .filter((edge) => {
      const [from, to] = edge.split(' -> ');
      return from! < to! && edges.has(`${to} -> ${from}`);
    })
    .map((edge) => `${edges.get(edge)} and back: ${edges.get(edge.split(' -> ').reverse().join(' -> '))}`);
  assert.deepEqual(mutual, []);
});

test('queries live in store modules', () => {
  const query = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/;
  const outside = files.filter((file) => {
    const path = name(file);
    if (path.startsWith('store/') || path.endsWith('/store.ts') || isTestSupport(file)) return false;
    return query.test(readFileSync(file, 'utf8'));
  });
  assert.deepEqual(outside.map(name), []);
});

test('only the composition root (app, services, background jobs, CLI) knows the whole set of services', () => {
  const composition = /^(app|services|background-jobs)\.ts$|^cli\//;
  const users = files.filter((file) => !composition.test(name(file)) && !isTestSupport(file) && /\bServices\b/.test(readFileSync(file, 'utf8')));
  assert.deepEqual(users.map(name), []);
});
