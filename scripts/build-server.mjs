// Compiles the servers (server.ts, scripts/gateway.ts) to JavaScript in dist/ with esbuild, when missing or older
// than any of their sources, so production runs plain `node dist/server.mjs` / `node dist/gateway.mjs` instead of
// compiling TypeScript at every start through tsx (whose loader, transforms and source maps cost ~40 MB of RSS for
// the life of the process). Packages stay external (node_modules, native better-sqlite3 included). Dynamic
// `import()`s become chunks of their own, so what a process does not use (cluster code and ioredis in a single
// process) is never loaded. Tests and `npm run dev` keep running the TypeScript through tsx.
//
// Each build goes to a directory of its own (dist/b-…), and dist/<entry>.mjs is a one-line module importing the newest
// one: a build running beside another process, or beside another build, never swaps files under it.
// Usage: `node scripts/build-server.mjs` (builds only when stale; `--force` always); or import buildServerIfStale().
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist');
/** Entry name in dist/ → source. (`npm run bench` runs its bare relays compiled too, so they compare like for like.) */
const ENTRIES = { gateway: 'scripts/gateway.ts', server: 'server.ts', 'bare-relay': 'scripts/bare-relay.ts' };
const STAMP = join(OUT, 'build.json');
/** Besides the bundled sources, what changes the output. */
const ALSO_INPUTS = ['scripts/build-server.mjs', 'tsconfig.json', 'package.json'];
/** Builds other than the newest are deleted once this old (a process started from one loads its chunks at start). */
const KEEP_OLD_BUILDS_MS = 60 * 60 * 1000;

/**
 * What node runs the gateway-only process with (`npm run gateway`, the bench; package.json spells it too). Under a
 * broadcast load V8 grows the young generation to its default cap of 2 × 16 MB, most of what the process adds over
 * its idle RSS; 2 × 8 MB keeps the peak of `npm run bench` (c) near 98 MB instead of 110–127, at no CPU cost
 * measurable there (median 0.65 against 0.64 µs per delivery over eleven interleaved runs, within their spread).
 */
export const gatewayNodeFlags = ['--max-semi-space-size=8'];

/** The compiled entries (absolute paths), by name. */
export const serverEntries = Object.fromEntries(Object.keys(ENTRIES).map((name) => [name, join(OUT, `${name}.mjs`)]));

/** Why the compiled servers must be built again, or undefined when they are current. */
export function staleReason() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return 'no build yet';
  }
  for (const name of Object.keys(ENTRIES)) if (!existsSync(join(OUT, `${name}.mjs`))) return `dist/${name}.mjs is missing`;
  if (!existsSync(join(OUT, stamp.dir))) return 'the build is missing';
  for (const input of [...stamp.inputs, ...ALSO_INPUTS]) {
    let mtime;
    try {
      mtime = statSync(join(ROOT, input)).mtimeMs;
    } catch {
      return `${input} is gone`;
    }
    if (mtime > stamp.builtAt) return `${input} changed`;
  }
  return undefined;
}

/**
 * `import.meta.url` of a bundled module would be the bundle's: each source that reads it gets its own location
 * instead (relative to the output, so the checkout may move), and `new URL('./run-agent.ts', import.meta.url)`
 * still names the file beside the source.
 */
function sourceImportMetaUrl(outdir) {
  return {
    name: 'source-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.tsx?$/ }, async (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const own = JSON.stringify(relative(outdir, args.path).split(sep).join('/'));
        return { contents: text.replaceAll('import.meta.url', `new URL(${own}, import.meta.url).href`), loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
      });
    },
  };
}

/** Builds into a new dist/b-… directory and points the entries at it. */
export async function buildServer() {
  const { build, stop } = await import('esbuild');
  const builtAt = Date.now();
  const dir = `b-${builtAt.toString(36)}-${process.pid}`;
  const outdir = join(OUT, dir);
  mkdirSync(outdir, { recursive: true });
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, resolve(ROOT, source)])),
      outdir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      packages: 'external',
      outExtension: { '.js': '.mjs' },
      chunkNames: '[name]-[hash]',
      metafile: true,
      logLevel: 'warning',
      plugins: [sourceImportMetaUrl(outdir)],
    });
    const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.includes('node_modules/'));
    const write = (file, text) => {
      writeFileSync(`${file}.${process.pid}.tmp`, text);
      renameSync(`${file}.${process.pid}.tmp`, file);
    };
    write(STAMP, JSON.stringify({ dir, builtAt, inputs }, null, 1));
    for (const name of Object.keys(ENTRIES))
      write(join(OUT, `${name}.mjs`), `// Built by scripts/build-server.mjs from ${ENTRIES[name]}.\nimport './${dir}/${name}.mjs';\n`);
  } catch (e) {
    rmSync(outdir, { recursive: true, force: true });
    throw e;
  } finally {
    await stop();
  }
  for (const old of readdirSync(OUT)) {
    const path = join(OUT, old);
    if (old.startsWith('b-') && old !== dir && Date.now() - statSync(path).mtimeMs > KEEP_OLD_BUILDS_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** Builds when stale; returns the compiled entries. Throws when the build fails (esbuild printed why). */
export async function buildServerIfStale({ quiet = false } = {}) {
  const reason = staleReason();
  if (reason) {
    if (!quiet) console.log(`Compiling the server to dist/ (${reason})…`);
    await buildServer();
  }
  return serverEntries;
}

if (process.argv[1] && basename(process.argv[1]) === 'build-server.mjs') {
  try {
    if (process.argv.includes('--force')) await buildServer();
    else await buildServerIfStale();
  } catch {
    process.exit(1);
  }
}
