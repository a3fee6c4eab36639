// `agentrl new <template> <dir>`: the wizard's renderer for terminals and CI. Creates <dir>/<name>
// and merges the debug entries into <dir>/.vscode/launch.json (or --workspace's).
import * as path from 'path';
import { parseArgs } from 'node:util';
import { DEFAULT_MODEL } from './plan/flow';
import { DEFAULT_BASE_URL } from './plan/launch';
import { english } from '../base/l10n';
import { asPromise } from '../base/promise';
import { ScaffoldError, ScaffoldWriteError } from './plan/errors';
import { planProject } from './plan/plan';
import { TemplateSetError, parseTemplateSet, type TemplateFiles } from './templates/template-set';
import { localized } from './templates/types';
import { writePlan } from './plan/write';

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const processIo: Io = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

const HELP = `Usage: agentrl new <template> <dir> [options]
       agentrl new --list [--json]

Creates <dir>/<name>: a runnable RL workflow project (Python workflow + reward or judge, YAML
config, sample data, README) and adds "agentrl" debug entries to <dir>/.vscode/launch.json.
Never overwrites: the project folder must not exist.

Options:
  --name N        project name, a Python identifier (default: the template's, e.g. math_agent)
  --model M       model to train: Hugging Face id or local path (default: ${DEFAULT_MODEL})
  --data FILE     a JSONL task file copied into data/ (default: the bundled sample rows)
  --workspace W   folder whose .vscode/launch.json gets the entries (default: <dir>)
  --no-launch     leave launch.json alone
  --base-url URL  OpenAI-compatible endpoint for the debug entries (default: ${DEFAULT_BASE_URL})
  --list          print the templates
  --json          machine-readable output
  -h, --help      this help
`;

function usageError(io: Io, message: string): number {
  io.stderr(`agentrl new: ${message}\nRun 'agentrl new --help' for the options.\n`);
  return 2;
}

export function main(argv: string[], templates: TemplateFiles, io: Io = processIo): Promise<number> {
  return asPromise(() => runNew(argv, templates, io));
}

function runNew(argv: string[], templates: TemplateFiles, io: Io): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        model: { type: 'string' },
        data: { type: 'string' },
        workspace: { type: 'string' },
        'no-launch': { type: 'boolean' },
        'base-url': { type: 'string' },
        list: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    return usageError(io, (e as Error).message);
  }
  const { values: o, positionals } = parsed;
  if (o.help) {
    io.stdout(HELP);
    return 0;
  }
  let set;
  try {
    set = parseTemplateSet(templates);
  } catch (e) {
    if (!(e instanceof TemplateSetError)) throw e;
    io.stderr(`agentrl new: broken template data: ${e.message}\n`);
    return 1;
  }
  if (o.list) {
    if (positionals.length) return usageError(io, '--list takes no arguments');
    if (o.json) {
      const rows = set.templates.map((t) => ({ id: t.id, framework: t.framework, label: t.label.en, defaultName: t.defaultName, configs: t.configs }));
      io.stdout(JSON.stringify(rows, null, 2) + '\n');
    } else {
      const width = Math.max(...set.templates.map((t) => t.id.length));
      for (const t of set.templates) io.stdout(`${t.id.padEnd(width)}  ${t.framework.padEnd(10)}  ${localized(t.label, 'en')}\n`);
    }
    return 0;
  }
  if (positionals.length !== 2) return usageError(io, positionals.length < 2 ? 'expected <template> <dir>' : `unexpected argument '${positionals[2]}'`);
  const [templateId, dir] = positionals;
  const template = set.templates.find((t) => t.id === templateId);
  if (!template) return usageError(io, `unknown template '${templateId}'. Templates: ${set.templates.map((t) => t.id).join(', ')}`);
  const baseUrl = o['base-url'] ?? DEFAULT_BASE_URL;
  if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) return usageError(io, `--base-url must be an http(s) URL, got '${baseUrl}'`);
  if (o['no-launch'] && o.workspace) return usageError(io, '--workspace and --no-launch contradict each other');

  const target = path.resolve(dir);
  try {
    const plan = planProject(
      {
        set,
        template: templateId,
        name: o.name ?? template.defaultName,
        model: o.model ?? DEFAULT_MODEL,
        target,
        data: o.data ? { kind: 'file', path: o.data } : { kind: 'sample' },
        launchRoot: o['no-launch'] ? null : path.resolve(o.workspace ?? target),
        baseUrl,
        createTarget: true,
      },
      english,
    );
    const result = writePlan(plan, english);
    if (o.json) {
      io.stdout(
        JSON.stringify({ projectDir: result.projectDir, files: result.written, open: plan.open, configs: plan.configs, launch: result.launchNames }, null, 2) +
          '\n',
      );
      return 0;
    }
    const rel = (p: string) => path.relative(process.cwd(), p) || '.';
    io.stdout(`Created ${rel(result.projectDir)} from template ${templateId}:\n`);
    for (const f of plan.files) io.stdout(`  ${rel(f.path)}\n`);
    if (plan.launch) io.stdout(`Added to ${rel(plan.launch.file)}: ${result.launchNames.map((n) => `"${n}"`).join(', ')}\n`);
    io.stdout(`Next: read ${rel(path.join(result.projectDir, 'README.md'))} (debug a rollout with F5, then train).\n`);
    return 0;
  } catch (e) {
    if (e instanceof ScaffoldWriteError) {
      io.stderr(`agentrl new: ${e.message}\n`);
      return 1;
    }
    if (e instanceof ScaffoldError) return usageError(io, e.message);
    if (e instanceof TemplateSetError) {
      io.stderr(`agentrl new: broken template data: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
