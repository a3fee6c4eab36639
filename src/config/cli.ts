// `agentrl check`: the config engine on the command line (CI, GPU nodes). Exit 0 when no
// file has an error, 1 when any has, 2 on usage or I/O problems.
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import picomatch from 'picomatch';
import type { CheckDiagnostic, ConfigKind } from '../feature-api/config-checker';
import { VERSION } from '../base/version';
import { asPromise } from '../base/promise';
import { EngineChecker, readConfigText, toCheckDiagnostics } from './engine/checker';
import { ConfigIndex } from './engine/crossfile';
import type { Analysis } from './engine/engine';
import { KIND_LABEL } from './core/kind-label';
import { useLanguage } from './core/l10n-bundle';
import { l10n, render } from './core/l10n-text';
import { TRINITY_VERSIONS } from './schema/schemas';
import { CLI_SKIP_DIRS, walkFiles } from './workspace/walk';

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const processIo: Io = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

export const USAGE = `Usage: agentrl check [options] <files, directories or globs…>

Checks Trinity-RFT, ASTuner and AgentJet configs (the same engine as the editor).

Options:
  --format text|json|sarif   Output format (default: text)
  --kind auto|trinity|astuner|ajet
                             Check every file as this kind, whatever its content or
                             \`# agentrl:\` line says (default: auto-detect; a file named
                             here that matches no kind is checked as the likeliest one)
  --root DIR                 Project root: relative paths and Python names resolve here
                             (default: the current directory; repeatable)
  --trinity-version V        Trinity-RFT release in force (${TRINITY_VERSIONS.join(', ')}; default:
                             the installed package under the root, else its pin in
                             requirements*.txt, pyproject.toml, setup.cfg, environment.yml or
                             uv.lock, else the newest). Fields, values and names of
                             later releases are reported as needing them
  --verl-version V           verl release under the trainer (default: installed or pinned under
                             the root). With verl ≥ 0.8, Trinity-RFT 0.6 ignores
                             trainer.trainer_config and M2PO can run
  --env NAME=VALUE           Environment for \${oc.env:…} interpolations (repeatable)
  --no-paths                 Do not check that local paths exist
  --quiet                    Text format: errors only
  --lang en|zh-cn            Language of the messages (default: en)
  -h, --help                 Show this help

Exit status: 0 no errors, 1 errors found, 2 usage or I/O error.
`;

const GLOB_CHARS = /[*?[\]{}]/;

/** Expands files, directories (their *.yaml / *.yml) and globs, in a stable order. `named` are
 *  the files given by their own name: those are never skipped as "not a config". */
export function expandInputs(inputs: string[], cwd = process.cwd()): { files: string[]; missing: string[]; named: Set<string> } {
  const files: string[] = [];
  const missing: string[] = [];
  const named = new Set<string>();
  for (const input of inputs) {
    const abs = path.resolve(cwd, input);
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(abs);
    } catch {
      st = undefined;
    }
    if (st?.isFile()) {
      files.push(abs);
      named.add(abs);
    } else if (st?.isDirectory())
      files.push(...walkFiles(abs, { accept: (rel) => /\.ya?ml$/.test(rel), maxDepth: 20, skipHidden: false, skipDirs: CLI_SKIP_DIRS }).files);
    else if (GLOB_CHARS.test(input)) {
      const parts = input.split(/[/\\]/);
      const baseParts: string[] = [];
      for (const p of parts) {
        if (GLOB_CHARS.test(p)) break;
        baseParts.push(p);
      }
      const base = path.resolve(cwd, baseParts.join('/') || '.');
      const pattern = parts.slice(baseParts.length).join('/');
      const isMatch = picomatch(pattern, { dot: false });
      const before = files.length;
      files.push(...walkFiles(base, { accept: (rel) => isMatch(rel), maxDepth: 20, skipHidden: false, skipDirs: CLI_SKIP_DIRS }).files);
      if (files.length === before) missing.push(input);
    } else missing.push(input);
  }
  return { files: [...new Set(files)], missing, named };
}

interface FileResult {
  file: string;
  kind: ConfigKind | null;
  diagnostics: CheckDiagnostic[];
  analysis?: Analysis;
}

function display(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

function formatText(results: FileResult[], quiet: boolean): string {
  const out: string[] = [];
  const totals = { error: 0, warning: 0, info: 0 };
  for (const r of results) {
    const shown = r.diagnostics.filter((d) => !quiet || d.severity === 'error');
    for (const d of r.diagnostics) totals[d.severity]++;
    if (!shown.length) continue;
    out.push(`${r.file}${r.kind ? `  (${KIND_LABEL[r.kind]})` : ''}`);
    for (const d of shown) {
      out.push(`  ${`${d.range.start.line + 1}:${d.range.start.character + 1}`.padEnd(8)} ${d.severity.padEnd(7)}  ${d.message}  ${d.code}`);
    }
    out.push('');
  }
  const checked = results.filter((r) => r.kind).length;
  const n = totals.error + totals.warning + totals.info;
  out.push(
    `${n ? '✖' : '✔'} ${n} problem${n === 1 ? '' : 's'} (${totals.error} error${totals.error === 1 ? '' : 's'}, ${totals.warning} warning${totals.warning === 1 ? '' : 's'}, ${totals.info} info) in ${checked} config${checked === 1 ? '' : 's'} of ${results.length} file${results.length === 1 ? '' : 's'}`,
  );
  return out.join('\n') + '\n';
}

function formatSarif(results: FileResult[], cwd: string): string {
  const rules = new Map<string, { id: string; shortDescription: { text: string } }>();
  const level = { error: 'error', warning: 'warning', info: 'note' } as const;
  const sarifResults = results.flatMap((r) =>
    r.diagnostics.map((d) => {
      if (!rules.has(d.code)) rules.set(d.code, { id: d.code, shortDescription: { text: d.code } });
      return {
        ruleId: d.code,
        level: level[d.severity],
        message: { text: d.message },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: display(path.resolve(cwd, r.file), cwd).split(path.sep).join('/') },
              region: {
                startLine: d.range.start.line + 1,
                startColumn: d.range.start.character + 1,
                endLine: d.range.end.line + 1,
                endColumn: d.range.end.character + 1,
              },
            },
            logicalLocations: d.path ? [{ fullyQualifiedName: d.path }] : undefined,
          },
        ],
      };
    }),
  );
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'agentrl check', version: VERSION, informationUri: 'https://github.com/agentrl/agent-rl-studio', rules: [...rules.values()] } },
        results: sarifResults,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

export function main(argv: string[], io: Io = processIo): Promise<number> {
  return asPromise(() => runCheck(argv, io));
}

function runCheck(argv: string[], io: Io): number {
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string', default: 'text' },
        kind: { type: 'string', default: 'auto' },
        root: { type: 'string', multiple: true },
        'trinity-version': { type: 'string' },
        'verl-version': { type: 'string' },
        env: { type: 'string', multiple: true },
        'no-paths': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        lang: { type: 'string', default: 'en' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    io.stderr(`agentrl check: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const format = String(values.format);
  const kind = String(values.kind);
  if (!['text', 'json', 'sarif'].includes(format)) {
    io.stderr(`agentrl check: --format must be text, json or sarif (got '${format}')\n`);
    return 2;
  }
  if (!['auto', 'trinity', 'astuner', 'ajet'].includes(kind)) {
    io.stderr(`agentrl check: --kind must be auto, trinity, astuner or ajet (got '${kind}')\n`);
    return 2;
  }
  const locale = String(values.lang).toLowerCase();
  if (locale !== 'en' && locale !== 'zh-cn') {
    io.stderr(`agentrl check: --lang must be en or zh-cn (got '${locale}')\n`);
    return 2;
  }
  const lang = useLanguage(locale);
  const tv = values['trinity-version'] as string | undefined;
  if (tv && !/^\d+\.\d+(\.\d+)?/.test(tv)) {
    io.stderr(`agentrl check: --trinity-version must look like 0.5.2 (got '${tv}')\n`);
    return 2;
  }
  const vv = values['verl-version'] as string | undefined;
  if (vv && !/^\d+\.\d+(\.\d+)?/.test(vv)) {
    io.stderr(`agentrl check: --verl-version must look like 0.8.0 (got '${vv}')\n`);
    return 2;
  }
  const env: Record<string, string> = {};
  for (const e of (values.env as string[] | undefined) ?? []) {
    const i = e.indexOf('=');
    if (i <= 0) {
      io.stderr(`agentrl check: --env expects NAME=VALUE (got '${e}')\n`);
      return 2;
    }
    env[e.slice(0, i)] = e.slice(i + 1);
  }
  if (!positionals.length) {
    io.stderr(`agentrl check: no files given\n\n${USAGE}`);
    return 2;
  }
  const cwd = process.cwd();
  const roots = ((values.root as string[] | undefined) ?? [cwd]).map((r) => path.resolve(cwd, r));
  for (const r of roots) {
    if (!fs.existsSync(r) || !fs.statSync(r).isDirectory()) {
      io.stderr(`agentrl check: --root ${r} is not a directory\n`);
      return 2;
    }
  }
  const { files, missing, named } = expandInputs(positionals, cwd);
  if (missing.length) {
    io.stderr(`agentrl check: no such file or no match: ${missing.join(', ')}\n`);
    return 2;
  }
  const checker = new EngineChecker({
    roots,
    env,
    kind: kind as ConfigKind | 'auto',
    trinityVersion: tv,
    trinityVersionSource: tv ? '--trinity-version' : undefined,
    verlVersion: vv,
    checkPaths: !values['no-paths'],
  });
  const results: FileResult[] = [];
  const texts = new Map<string, string>();
  let ioError = false;
  for (const f of files) {
    const shown = display(f, cwd);
    let r: ReturnType<typeof readConfigText>;
    try {
      r = readConfigText(f);
    } catch (err) {
      io.stderr(`agentrl check: cannot read ${shown}: ${(err as Error).message}\n`);
      ioError = true;
      continue;
    }
    if ('binary' in r) {
      results.push({
        file: shown,
        kind: null,
        diagnostics: [
          {
            severity: kind === 'auto' && !named.has(f) ? 'warning' : 'error',
            code: 'input.binary',
            message: render(l10n.t('Binary content: not a YAML text file.'), lang),
            path: '',
            range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          },
        ],
      });
      continue;
    }
    texts.set(f, r.text);
    const a = checker.analyzeText(f, r.text, { guessKind: named.has(f) });
    results.push({ file: shown, kind: a.kind, diagnostics: toCheckDiagnostics(a, lang), analysis: a });
  }
  // second pass: explorer/trainer halves of one job must agree
  const index = new ConfigIndex();
  for (const r of results) {
    const facts = r.analysis?.docs[0]?.facts;
    if (facts) index.set(facts.file, facts);
  }
  for (const r of results) {
    const facts = r.analysis?.docs[0]?.facts;
    if (!facts || !index.peersOf(facts).length) continue;
    const a = checker.analyzeText(facts.file, texts.get(facts.file)!, { peers: index, guessKind: named.has(facts.file) });
    r.analysis = a;
    r.diagnostics = toCheckDiagnostics(a, lang);
  }
  if (format === 'json') {
    io.stdout(JSON.stringify(results.map((r) => ({ file: r.file, kind: r.kind, diagnostics: r.diagnostics }))) + '\n');
  } else if (format === 'sarif') {
    io.stdout(formatSarif(results, cwd));
  } else {
    io.stdout(formatText(results, !!values.quiet));
  }
  if (ioError) return 2;
  return results.some((r) => r.diagnostics.some((d) => d.severity === 'error')) ? 1 : 0;
}
