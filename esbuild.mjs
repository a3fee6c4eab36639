// Bundles every runtime entry point into dist/ (and the webview into media/).
// Entries whose source does not exist yet are skipped, so features can land one by one.
//   node esbuild.mjs            development build (sourcemaps)
//   node esbuild.mjs --production   minified, no sourcemaps (used by `npm run package`)
//   node esbuild.mjs --watch    rebuild on change
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { writePythonRelay } from './scripts/bundle-python-relay.mjs';

const root = path.dirname(new URL(import.meta.url).pathname);
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** ws tries its optional native addons (bufferutil, utf-8-validate) in a try/catch: bundle a
 *  stub that throws, so it falls back to JS and the bundles require only node built-ins. */
const noNativeAddons = {
  name: 'no-native-addons',
  setup(build) {
    build.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (a) => ({ path: a.path, namespace: 'no-native' }));
    build.onLoad({ filter: /.*/, namespace: 'no-native' }, (a) => ({
      contents: `throw new Error(${JSON.stringify(`${a.path} is not bundled`)});`,
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  legalComments: 'none',
  logLevel: 'warning',
  define: { AGENTRL_VERSION: JSON.stringify(pkg.version) },
};

/** Node targets: the extension host (vscode external), the LSP server, the CLI. */
const nodeEntries = [
  { in: 'src/extension.ts', out: 'dist/extension.js', external: ['vscode'] },
  { in: 'src/config/lsp/server.ts', out: 'dist/server.js' },
  // The CLI must run on a bare GPU node: plain node >= 18, no node_modules.
  { in: 'src/cli.ts', out: 'dist/agentrl.js', banner: '#!/usr/bin/env node' },
];
/** Extension-host code loaded on first use (src/base/lazy.ts `lazyBundle('<name>')`):
 *  keeps heavy libraries (languageclient, openai, debugadapter, ws) out of activation. */
const hostBundles = [
  { in: 'src/config/host.ts', out: 'dist/config-host.js' },
  // the config engine as a ConfigChecker factory (createConfigChecker) for other features
  { in: 'src/config/engine/checker.ts', out: 'dist/config-engine.js' },
  // a training run's experiences for the debugger's row replays (createExperienceReader)
  { in: 'src/relay/experience-reader.ts', out: 'dist/relay-experiences.js' },
  { in: 'src/scaffold/host.ts', out: 'dist/scaffold-host.js' },
  { in: 'src/metrics/host.ts', out: 'dist/metrics-host.js' },
  // the rollout debugger: DAP session, recording gateway (openai SDK), views
  { in: 'src/debug/host.ts', out: 'dist/debug-host.js' },
  // online training: explorer client (openai SDK), feedback outbox, playground host
  { in: 'src/online/host.ts', out: 'dist/online-host.js' },
  // Ray clusters: dashboard client, packaging (zip), log WebSocket, the Ray view
  { in: 'src/ray/host.ts', out: 'dist/ray-host.js' },
  // the model comparison: its command flow and panel
  { in: 'src/eval/host.ts', out: 'dist/eval-host.js' },
];
for (const h of hostBundles) nodeEntries.push({ ...h, external: ['vscode'] });

/** Browser target: the metrics webview (no network, loaded via asWebviewUri). */
const webEntries = [
  { in: 'src/metrics/webview/main.ts', out: 'media/metrics.js' },
  { in: 'src/online/webview/main.ts', out: 'media/online.js' },
  { in: 'src/eval/webview/main.ts', out: 'media/eval.js' },
  // the debugger's token panel ("Show tokens" on an LLM call)
  { in: 'src/debug/webview/tokens-main.ts', out: 'media/debug-tokens.js' },
];

/** `import files from 'agentrl:templates'`: every file under templates/ by relative path, so the
 *  single-file CLI carries the scaffold templates (src/scaffold/templates/embedded.ts). */
const templatesPlugin = {
  name: 'agentrl-templates',
  setup(build) {
    build.onResolve({ filter: /^agentrl:templates$/ }, () => ({ path: 'templates', namespace: 'agentrl-templates' }));
    build.onLoad({ filter: /.*/, namespace: 'agentrl-templates' }, () => {
      const dir = path.join(root, 'templates');
      const files = {};
      const dirs = [];
      const walk = (d, rel) => {
        dirs.push(d);
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          const r = rel ? `${rel}/${e.name}` : e.name;
          if (e.isDirectory()) walk(path.join(d, e.name), r);
          else if (e.isFile()) files[r] = fs.readFileSync(path.join(d, e.name), 'utf8');
        }
      };
      walk(dir, '');
      return { contents: JSON.stringify(files), loader: 'json', watchDirs: dirs, watchFiles: Object.keys(files).map((f) => path.join(dir, f)) };
    });
  },
};

/** scan-worker-code.ts as the text of the scan worker (src/tfrecord/scan-worker.ts) bundled
 *  on its own: the CLI starts it with `new Worker(code, { eval: true })`, so dist/agentrl.js
 *  stays one file (tsc's out/ starts the worker from its own file instead). */
const scanWorkerPlugin = {
  name: 'agentrl-scan-worker',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]tfrecord[\\/]scan-worker-code\.ts$/ }, async () => {
      const worker = await esbuild.build({
        entryPoints: [path.join(root, 'src/tfrecord/scan-worker.ts')],
        absWorkingDir: root,
        bundle: true,
        write: false,
        metafile: true,
        minify: production,
        legalComments: 'none',
        logLevel: 'warning',
        platform: 'node',
        target: 'node18',
        format: 'cjs',
      });
      return {
        contents: `export const SCAN_WORKER_CODE: string | undefined = ${JSON.stringify(worker.outputFiles[0].text)};`,
        loader: 'ts',
        watchFiles: Object.keys(worker.metafile.inputs).map((f) => path.join(root, f)),
      };
    });
  },
};

/** sqlite-wasm.ts returning the bytes of wa-sqlite's wasm (base64 in the bundle, as sql.js's inline
 *  build did): the relay's SQL reader (src/sqlite/sqlite-db.ts) needs no side file. */
const sqliteWasmPlugin = {
  name: 'agentrl-sqlite-wasm',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]sqlite[\\/]sqlite-wasm\.ts$/ }, () => {
      const file = path.join(root, 'node_modules/wa-sqlite/dist/wa-sqlite.wasm');
      const b64 = fs.readFileSync(file).toString('base64');
      return {
        contents: `export function sqliteWasm(): Uint8Array { return Buffer.from(${JSON.stringify(b64)}, 'base64'); }`,
        loader: 'ts',
        watchFiles: [file],
      };
    });
  },
};

const builds = [];
for (const e of nodeEntries) {
  if (!fs.existsSync(path.join(root, e.in))) continue;
  builds.push({
    ...common,
    entryPoints: [path.join(root, e.in)],
    outfile: path.join(root, e.out),
    platform: 'node',
    target: 'node18',
    format: 'cjs',
    external: e.external ?? [],
    banner: e.banner ? { js: e.banner } : undefined,
    mainFields: ['module', 'main'],
    plugins: [templatesPlugin, scanWorkerPlugin, sqliteWasmPlugin, noNativeAddons],
  });
}
for (const e of webEntries) {
  if (!fs.existsSync(path.join(root, e.in))) continue;
  builds.push({
    ...common,
    entryPoints: [path.join(root, e.in)],
    outfile: path.join(root, e.out),
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
  });
}

/** Files shipped as-is next to the bundles: the Python runner package, run by the user's
 *  interpreter as `python -m agentrl_runner` with dist/runner on its path. */
function copyAssets() {
  const assets = [{ from: 'src/debug/runner/agentrl_runner', to: 'dist/runner/agentrl_runner', clean: 'dist/runner', filter: (f) => f.endsWith('.py') }];
  for (const a of assets) {
    const src = path.join(root, a.from);
    if (!fs.existsSync(src)) continue;
    // A file removed or renamed in src must not ship from an earlier build.
    fs.rmSync(path.join(root, a.clean), { recursive: true, force: true });
    fs.mkdirSync(path.join(root, a.to), { recursive: true });
    for (const f of fs.readdirSync(src)) {
      if (a.filter(f)) fs.copyFileSync(path.join(src, f), path.join(root, a.to, f));
    }
  }
  // The relay for nodes with Python and no Node: one file beside dist/agentrl.js.
  writePythonRelay(root, pkg.version, 'dist/agentrl_relay.py');
}

const t0 = Date.now();
if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
  copyAssets();
  console.log('[esbuild] watching', builds.length, 'entries');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  copyAssets();
  const cli = path.join(root, 'dist/agentrl.js');
  if (fs.existsSync(cli)) fs.chmodSync(cli, 0o755);
  console.log(`[esbuild] built ${builds.length} entries in ${Date.now() - t0} ms${production ? ' (production)' : ''}`);
}
