import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { WALLET_SERVICE_BIN as BIN } from '../testing/service-process.ts';

/** The command names `--help` lists: the first words of its command lines, before any option. */
function commandsInHelp(help: string): string[] {
  const section = help.split('\nCommands:\n')[1]!.split('\nGlobal options:')[0]!;
  return [...section.matchAll(/^ {2}([a-z][a-z0-9-]*(?: [a-z][a-z0-9-]*)?)(?= |$)/gm)].map((match) => match[1]!);
}

test('docs/cli.md documents every command --help lists, and no other', () => {
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(help.status, 0, help.stderr);
  const listed = commandsInHelp(help.stdout);
  assert.ok(listed.length > 20, `commands found in --help: ${listed.join(', ')}`);
  const doc = readFileSync(new URL('../../../../docs/cli.md', import.meta.url), 'utf8');
  const documented = [...doc.matchAll(/^\| `([a-z][a-z0-9-]*(?: [a-z][a-z0-9-]*)?)(?=[ `])/gm)].map((match) => match[1]!);
  assert.deepEqual([...new Set(documented)].sort(), [...new Set(listed)].sort());
});

test('every command of the table loads its code, and --help lists exactly the table (with serve and backup restore)', async () => {
  const { COMMANDS, USAGE } = await import('./command-table.ts');
  for (const [name, entry] of Object.entries(COMMANDS)) assert.equal(typeof (await entry.load()), 'function', `${name}: no handler of that name in its module`);
  assert.deepEqual([...new Set(commandsInHelp(USAGE))].sort(), [...Object.keys(COMMANDS), 'serve', 'backup restore'].sort());
});
