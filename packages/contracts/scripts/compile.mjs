// Compiles the Solidity sources under src/ with solc-js and renders the generated TypeScript
// artifact modules. Shared by scripts/build.mjs (writes them) and src/artifacts.test.ts
// (checks the committed ones are up to date).

import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Absolute path of the contracts package. */
export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const sourceDir = path.join(packageDir, 'src');

/** Directory of the generated modules, relative to the package. */
export const generatedDir = 'src/generated';

/** Contracts that get a generated module, and the identifier prefix of their exports. */
export const artifactTargets = [
  { source: 'src/CardNFT.sol', contract: 'CardNFT', exportPrefix: 'cardNft' },
  { source: 'src/LeanCardNFT.sol', contract: 'LeanCardNFT', exportPrefix: 'leanCardNft' },
  { source: 'src/CardEscrow.sol', contract: 'CardEscrow', exportPrefix: 'cardEscrow' },
  { source: 'src/baseline/NaiveCardNFT.sol', contract: 'NaiveCardNFT', exportPrefix: 'naiveCardNft' },
  { source: 'src/baseline/PlainCardNFT.sol', contract: 'PlainCardNFT', exportPrefix: 'plainCardNft' },
];

export const compilerSettings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  // No metadata hash or CBOR trailer, so bytecode depends only on the sources and settings.
  metadata: { bytecodeHash: 'none', appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

export class CompilationError extends Error {
  /** @param {string[]} messages formatted solc error messages */
  constructor(messages) {
    super(`Solidity compilation failed:\n\n${messages.join('\n')}`);
    this.name = 'CompilationError';
    this.messages = messages;
  }
}

/** Loads solc and checks it is exactly the version pinned in package.json. */
function loadSolc() {
  const solc = require('solc');
  const pinned = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).devDependencies.solc;
  const actual = solc.version();
  if (!actual.startsWith(`${pinned}+`)) {
    throw new Error(`solc ${pinned} is pinned in package.json but ${actual} is installed; run npm install`);
  }
  return solc;
}

/** Absolute paths of every .sol file under `dir`. */
function findSolidityFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...findSolidityFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.sol')) files.push(full);
  }
  return files;
}

/** Source unit names of all sources: paths relative to the package with `/` separators, sorted. */
function listSources() {
  return findSolidityFiles(sourceDir)
    .map((file) => path.relative(packageDir, file).split(path.sep).join('/'))
    .sort();
}

/**
 * solc import callback: resolves package imports such as `@openzeppelin/contracts/...` through
 * Node module resolution from this package, so the installed (pinned) version is used.
 * @param {string} importPath
 */
function resolveImport(importPath) {
  const segments = importPath.split('/');
  const packageName = importPath.startsWith('@') ? segments.slice(0, 2).join('/') : segments[0];
  const rest = segments.slice(importPath.startsWith('@') ? 2 : 1).join('/');
  try {
    const packageRoot = path.dirname(require.resolve(`${packageName}/package.json`));
    return { contents: readFileSync(path.join(packageRoot, rest), 'utf8') };
  } catch (error) {
    return { error: `Cannot resolve import "${importPath}": ${error.message}` };
  }
}

/**
 * solc warns (code 2394) on every `tstore`, including OpenZeppelin's TransientSlot used by
 * ReentrancyGuardTransient, whose guard is cleared at the end of each call and is therefore
 * safe (as the warning itself says). Only that warning, and only from dependencies, is dropped.
 */
function isKnownDependencyWarning(diagnostic) {
  return diagnostic.errorCode === '2394' && !diagnostic.sourceLocation?.file?.startsWith('src/');
}

/** Compiles all sources; returns solc's standard JSON output. Throws CompilationError on errors. */
export function compileSources() {
  const solc = loadSolc();
  const sources = {};
  for (const file of listSources()) {
    sources[file] = { content: readFileSync(path.join(packageDir, file), 'utf8') };
  }
  const input = { language: 'Solidity', sources, settings: compilerSettings };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: resolveImport }));

  const diagnostics = output.errors ?? [];
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new CompilationError(errors.map((d) => d.formattedMessage ?? d.message));
  const warnings = diagnostics.filter((d) => d.severity !== 'error' && !isKnownDependencyWarning(d));
  return { output, warnings, solcVersion: solc.version() };
}

/** @param {{ source: string, contract: string, exportPrefix: string }} target */
function renderModule(target, abi, bytecode, solcVersion) {
  return [
    `// Generated by \`npm run build:contracts\` from packages/contracts/${target.source}. Do not edit.`,
    `// Compiler: solc ${solcVersion}, optimizer runs ${compilerSettings.optimizer.runs}, evm ${compilerSettings.evmVersion}.`,
    '',
    `export const ${target.exportPrefix}Abi = ${JSON.stringify(abi, null, 2)} as const;`,
    '',
    `export const ${target.exportPrefix}Bytecode = '0x${bytecode}' as const;`,
    '',
  ].join('\n');
}

/**
 * Compiles the sources and renders one TypeScript module per artifact target.
 * @param {{ onWarning?: (message: string) => void }} [options] receives each compiler warning
 * @returns {Record<string, string>} module contents keyed by path relative to the package,
 *   e.g. `src/generated/CardNFT.ts`
 */
export function compileContracts({ onWarning } = {}) {
  const { output, warnings, solcVersion } = compileSources();
  for (const warning of warnings) onWarning?.(warning.formattedMessage ?? warning.message);

  const files = {};
  for (const target of artifactTargets) {
    const compiled = output.contracts?.[target.source]?.[target.contract];
    if (!compiled) throw new Error(`Contract ${target.contract} not found in ${target.source}`);
    const bytecode = compiled.evm.bytecode.object;
    if (!bytecode) throw new Error(`Contract ${target.contract} has no bytecode (abstract or interface?)`);
    files[`${generatedDir}/${target.contract}.ts`] = renderModule(target, compiled.abi, bytecode, solcVersion);
  }
  return files;
}
