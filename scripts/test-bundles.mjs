// Test files as plain JavaScript, so that a test process loads its dependencies without a loader.
//
// Through tsx, every module a test process loads (viem's thousand files among them) goes through
// Node's off-thread loader hooks: 3 to 4 s of CPU before a test file's first test, about half of
// all the CPU time npm test spent on a 2-core machine. esbuild bundles each package's test files
// here in a second instead (shared code split into chunks); the packages they import from npm
// stay imports, loaded by Node itself. Each source's `import.meta.url` is replaced by the source
// file's own URL, so paths built from it (fixtures, docs, `createRequire`) are the same as when the
// sources run. Stack traces map back to the sources (`--enable-source-maps`).
//
// A file that imports a module whose path it computes at run time (`await import(url)` of a .ts)
// cannot be bundled: `needsLoader` tells, and run-tests.mjs runs those few through tsx.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { isBundledPackage } from '../packages/server/scripts/bundled-packages.mjs';

const BUNDLES = 'wallet-tests-';

/** Whether the file imports a path computed at run time, which only a loader can follow. */
export function needsLoader(source) {
  return /await import\(\s*[A-Za-z_$]/.test(source);
}

/**
 * Bundles `files` (paths relative to `root`, each under packages/<name>/) into
 * packages/<name>/node_modules/.cache/wallet-tests-<pid>/ of its own package.
 * Answers the bundle of each file, and a function that removes them. Bundles left by runs that
 * ended without removing theirs (a killed run) are removed first.
 */
export async function bundleTests(root, files) {
  const byPackage = new Map();
  for (const file of files) {
    const [top, name] = file.split(sep);
    if (top !== 'packages' || !name) throw new Error(`test-bundles: ${file} is not in a package`);
    byPackage.set(name, [...(byPackage.get(name) ?? []), file]);
  }
  const bundleOf = new Map();
  const outdirs = [];
  for (const [name, entries] of byPackage) {
    const cache = join(root, 'packages', name, 'node_modules', '.cache');
    removeAbandoned(cache);
    const outdir = join(cache, `${BUNDLES}${process.pid}`);
    outdirs.push(outdir);
    await build({
      // Node's runner sorts the files it is given by path: each bundle's path starts with its rank
      // in `files`, so they start in the order asked (the long ones first).
      entryPoints: entries.map((file) => ({ in: join(root, file), out: rankedName(files, file) })),
      outdir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      // What Node itself resolves by: no "module" condition, no "module" field.
      conditions: [],
      mainFields: ['main'],
      target: 'node20',
      sourcemap: 'linked',
      // Stack traces map to the sources on disk; their text in the maps made them four times the size,
      // read and parsed by every test process at its start (--enable-source-maps): 0.15 s of CPU each.
      sourcesContent: false,
      outExtension: { '.js': '.mjs' },
      logLevel: 'warning',
      plugins: [sourcesOnly(), ownUrls()],
    });
    for (const file of entries) bundleOf.set(file, join(outdir, `${rankedName(files, file)}.mjs`));
  }
  return {
    bundleOf,
    /** The source a bundle was built from (for reports), or the path as it is. */
    sourceOf: (path) => {
      for (const outdir of outdirs) {
        if (path.startsWith(outdir + sep)) return join(root, relative(outdir, path).replace(/^\d+-/, '')).replace(/\.mjs$/, '.ts');
      }
      return path;
    },
    remove: () => {
      for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
    },
  };
}

/** `0042-packages/server/src/x.test`: the file's rank in the run, then its path. */
function rankedName(files, file) {
  return `${String(files.indexOf(file)).padStart(4, '0')}-${file.replace(/\.ts$/, '')}`;
}

/**
 * npm packages stay imports, each resolved from the file that imports it (a package may have its
 * own version nested in its node_modules) to the file Node would load; the workspace's own
 * packages are bundled, and so are the server build's pure JavaScript packages of many modules
 * (packages/server/scripts/bundled-packages.mjs): a test file then loads in a fraction of the time.
 * The SDK goes in too, so that the viem it imports is the bundle's own.
 */
function sourcesOnly() {
  return {
    name: 'sources-only',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'inner') return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (/^@wallet-service\/(contracts|server|sdk)(\/|$)/.test(args.path) || isBundledPackage(args.path)) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'inner' });
        if (found.errors.length > 0) return { errors: found.errors };
        return { path: found.path, external: true };
      });
    },
  };
}

/** Each workspace file's `import.meta.url` is its own file's URL, as when it runs unbundled. */
function ownUrls() {
  return {
    name: 'own-urls',
    setup(build) {
      build.onLoad({ filter: /\.(tsx?|mjs|js)$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        return {
          contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
          loader: args.path.endsWith('.tsx') ? 'tsx' : args.path.endsWith('.ts') ? 'ts' : 'js',
        };
      });
    },
  };
}

function removeAbandoned(cache) {
  if (!existsSync(cache)) return;
  for (const entry of readdirSync(cache)) {
    if (!entry.startsWith(BUNDLES)) continue;
    const pid = Number(entry.slice(BUNDLES.length));
    if (pid !== process.pid && !isRunning(pid)) rmSync(join(cache, entry), { recursive: true, force: true });
  }
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
