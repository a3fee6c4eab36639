// npm run bench -- config
//
// Our config language server (dist/server.js) against yaml-language-server 1.25.0, both as
// real LSP servers over stdio, given the same JSON schemas (schemas/*.schema.json), on the
// same documents: every RL config of ../shared/corpus (or our own samples without it) and a
// 10 000-line Trinity config. Measured: time from sending `textDocument/didChange` to the
// `publishDiagnostics` for that change. Debounce is off in both: ours with
// agentrl.config.debounceMs = 0; yaml-language-server hard-codes a 200 ms validation delay
// (SettingsState.validationDelayMs, not a setting), which a 5-line wrapper sets to 0.
// Then the 10 000-case fixed-seed fuzz run of the engine.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { analyze } from '../../src/config/engine/engine';
import { LspProcess } from '../harness/lsp-stdio';
import { hasShared, repoRoot, sharedDir } from '../harness/paths';
import { fuzz } from '../unit/config/fuzz';
import { trinity } from '../unit/config/helpers';

const EDITS_PER_DOC = Number(process.env.AGENTRL_BENCH_EDITS ?? 15);
const BIG_EDITS = Number(process.env.AGENTRL_BENCH_BIG_EDITS ?? 30);
const FUZZ_CASES = Number(process.env.AGENTRL_BENCH_FUZZ ?? 10_000);

interface Doc {
  name: string;
  kind: 'trinity' | 'astuner' | 'ajet';
  text: string;
  file: string;
  uri: string;
}

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(dir, e.name)] : []));
}

/** A 10 000-line Trinity config: the base config plus evaluation tasksets. */
function bigConfig(): string {
  const head = trinity();
  const lines = head.split('\n').length;
  const per = 11; // lines per eval taskset below
  const n = Math.ceil((10_000 - lines) / per);
  const evals = Array.from({ length: n }, (_, i) => ({
    name: `gsm8k-eval-${i}`,
    storage_type: 'file',
    path: 'openai/gsm8k',
    split: 'test',
    subset_name: 'main',
    format: { prompt_key: 'question', response_key: 'answer' },
    rollout_args: { temperature: 0.6 },
    repeat_times: 1,
  }));
  return trinity({ buffer: { explorer_input: { eval_tasksets: evals } } });
}

function documents(ws: string): Doc[] {
  const sources: { name: string; text: string }[] = [];
  if (hasShared) {
    for (const f of walk(path.join(sharedDir, 'corpus')).sort())
      sources.push({ name: path.relative(path.join(sharedDir, 'corpus'), f), text: fs.readFileSync(f, 'utf8') });
  } else {
    sources.push({ name: 'sample/gsm8k.yaml', text: fs.readFileSync(path.join(repoRoot, 'sample-workspace', 'gsm8k', 'gsm8k.yaml'), 'utf8') });
    sources.push({ name: 'generated/base.yaml', text: trinity() });
  }
  const docs: Doc[] = [];
  for (const s of sources) {
    const kind = analyze(s.text, path.join('/bench', s.name), { checkPaths: false }).kind;
    if (!kind) continue; // neither server would publish for it
    const file = path.join(ws, kind, s.name.replace(/[/\\]/g, '__'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, s.text);
    docs.push({ name: s.name, kind, text: s.text, file, uri: pathToFileURL(file).toString() });
  }
  return docs;
}

/** A line whose number we can toggle (value ↔ value × 10) without breaking the YAML. */
function editLine(text: string): { line: number; start: number; a: string; b: string } {
  const lines = text.split('\n');
  const candidates: number[] = [];
  lines.forEach((l, i) => {
    if (/^\s+[\w-]+:\s+\d+\s*(#.*)?$/.test(l)) candidates.push(i);
  });
  const line = candidates.length
    ? candidates[Math.floor(candidates.length / 2)]
    : Math.max(
        0,
        lines.findIndex((l) => /:\s+\S/.test(l)),
      );
  const m = /^(\s*[\w-]+:\s+)(\S+)/.exec(lines[line])!;
  const a = m[2];
  return { line, start: m[1].length, a, b: /^\d+$/.test(a) ? `${a}0` : `${a}x` };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))];
}

async function measure(lsp: LspProcess, docs: Doc[], edits: number, usesVersions: boolean): Promise<number[]> {
  const times: number[] = [];
  for (const d of docs) {
    const opened = lsp.nextDiagnostics(d.uri, 120_000);
    await lsp.open(d.uri, d.text);
    await opened;
    const e = editLine(d.text);
    let current = e.a;
    let version = 1;
    for (let i = 0; i < edits + 2; i++) {
      const next = current === e.a ? e.b : e.a;
      version++;
      const wait = usesVersions ? lsp.diagnosticsAt(d.uri, version, 120_000) : lsp.nextDiagnostics(d.uri, 120_000);
      const t0 = performance.now();
      await lsp.change(d.uri, version, [
        { range: { start: { line: e.line, character: e.start }, end: { line: e.line, character: e.start + current.length } }, text: next },
      ]);
      await wait;
      const ms = performance.now() - t0;
      if (i >= 2) times.push(ms); // the first two edits warm the JIT and caches
      current = next;
    }
    await lsp.close(d.uri);
  }
  return times;
}

function yamllsWrapper(dir: string): string {
  const nm = path.join(repoRoot, 'node_modules', 'yaml-language-server');
  const file = path.join(dir, 'yamlls-no-delay.js');
  fs.writeFileSync(
    file,
    [
      '// yaml-language-server with its hard-coded 200 ms validation delay set to 0 (bench only).',
      `const settings = require(${JSON.stringify(path.join(nm, 'out/server/src/yamlSettings.js'))});`,
      'const Original = settings.SettingsState;',
      'settings.SettingsState = class extends Original { constructor() { super(); this.validationDelayMs = 0; } };',
      `process.env.YAML_LANGUAGE_SERVER_VERSION = require(${JSON.stringify(path.join(nm, 'package.json'))}).version;`,
      `require(${JSON.stringify(path.join(nm, 'out/server/src/server.js'))});`,
    ].join('\n'),
  );
  return file;
}

function yamllsSettings(ws: string) {
  const schema = (n: string) => pathToFileURL(path.join(repoRoot, 'schemas', n)).toString();
  return {
    validate: true,
    hover: true,
    completion: true,
    format: { enable: false },
    schemaStore: { enable: false },
    kubernetesCRDStore: { enable: false },
    schemas: {
      [schema('trinity-rft.schema.json')]: [`${ws}/trinity/*.yaml`, `${ws}/trinity/*.yml`],
      [schema('astuner.schema.json')]: [`${ws}/astuner/*.yaml`],
      [schema('ajet.schema.json')]: [`${ws}/ajet/*.yaml`],
    },
  };
}

function stats(label: string, xs: number[]) {
  return `${label.padEnd(34)} n=${String(xs.length).padStart(5)}  p50 ${quantile(xs, 0.5).toFixed(2).padStart(8)} ms  p99 ${quantile(xs, 0.99).toFixed(2).padStart(8)} ms  max ${Math.max(
    ...xs,
  )
    .toFixed(1)
    .padStart(8)} ms`;
}

async function main(): Promise<void> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-bench-config-'));
  try {
    const docs = documents(ws);
    const bigText = bigConfig();
    const bigFile = path.join(ws, 'trinity', 'big-10000-lines.yaml');
    fs.writeFileSync(bigFile, bigText);
    const big: Doc = { name: 'big', kind: 'trinity', text: bigText, file: bigFile, uri: pathToFileURL(bigFile).toString() };
    console.log(
      `config bench: ${docs.length} corpus documents${hasShared ? '' : ' (no ../shared: samples only)'}, a ${bigText.split('\n').length}-line config; ${EDITS_PER_DOC} edits each (${BIG_EDITS} on the big one)`,
    );
    console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}); debounce off in both servers (see file header)\n`);

    // ours
    const ours = LspProcess.start(process.execPath, [path.join(repoRoot, 'dist', 'server.js'), '--stdio'], { cwd: ws });
    ours.configuration = (s) => (s === 'agentrl.config' ? { debounceMs: 0 } : null);
    await ours.initialize(pathToFileURL(ws).toString(), { locale: 'en', settings: { debounceMs: 0 } });
    const oursCorpus = await measure(ours, docs, EDITS_PER_DOC, true);
    const oursBig = await measure(ours, [big], BIG_EDITS, true);
    await ours.stop();

    // yaml-language-server, same schemas
    const yamlls = LspProcess.start(process.execPath, [yamllsWrapper(ws), '--stdio'], { cwd: ws });
    const settings = yamllsSettings(ws);
    yamlls.configuration = (s) => (s === 'yaml' ? settings : s === '[yaml]' ? {} : null);
    await yamlls.initialize(pathToFileURL(ws).toString(), {});
    await yamlls.connection.sendNotification('workspace/didChangeConfiguration', { settings: { yaml: settings } });
    // sanity: it really validates against our schema
    const probeFile = path.join(ws, 'trinity', 'probe.yaml');
    fs.writeFileSync(probeFile, trinity({ explorr: 1 }));
    const probe = yamlls.nextDiagnostics(pathToFileURL(probeFile).toString(), 60_000);
    await yamlls.open(pathToFileURL(probeFile).toString(), fs.readFileSync(probeFile, 'utf8'));
    const probed = await probe;
    if (!probed.diagnostics.some((d) => /explorr/.test(d.message)))
      throw new Error(`yaml-language-server did not apply the schema: ${JSON.stringify(probed.diagnostics)}`);
    await yamlls.close(pathToFileURL(probeFile).toString());
    const yCorpus = await measure(yamlls, docs, EDITS_PER_DOC, false);
    const yBig = await measure(yamlls, [big], BIG_EDITS, false);
    await yamlls.stop();

    console.log('didChange → publishDiagnostics');
    console.log(stats('ours, corpus documents', oursCorpus));
    console.log(stats('yaml-language-server, corpus', yCorpus));
    console.log(stats('ours, 10 000-line config', oursBig));
    console.log(stats('yaml-language-server, 10 000 lines', yBig));
    const a = quantile(oursCorpus, 0.5);
    const c = quantile(yCorpus, 0.5);
    console.log(
      `\nratio (ours / yaml-language-server, p50): corpus ${(a / c).toFixed(3)}, 10 000 lines ${(quantile(oursBig, 0.5) / quantile(yBig, 0.5)).toFixed(3)}`,
    );
    console.log(
      `targets: ratio ≤ 0.2; p99 ≤ 10 ms on corpus files (${quantile(oursCorpus, 0.99).toFixed(2)}), ≤ 50 ms on 10 000 lines (${quantile(oursBig, 0.99).toFixed(2)})`,
    );

    // the fuzz run
    const seeds = [
      ...docs.map((d) => d.text),
      trinity(),
      trinity({ buffer: { explorer_input: { eval_tasksets: Array.from({ length: 80 }, (_, i) => ({ name: `e${i}`, path: 'openai/gsm8k' })) } } }),
    ];
    const t0 = Date.now();
    const f = fuzz(seeds, FUZZ_CASES, 20240611);
    console.log(
      `\nfuzz: ${f.cases} mutated documents, 0 failures, ${f.chunkedCompared} chunked parses equal to whole parses, slowest case ${f.slowestMs.toFixed(0)} ms, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    console.log(
      `BENCH config ours_p50_ms=${a.toFixed(2)} ours_p99_ms=${quantile(oursCorpus, 0.99).toFixed(2)} yamlls_p50_ms=${c.toFixed(2)} ratio=${(a / c).toFixed(3)}`,
    );
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
