// Shared by the scaffold component tests: the bundled CLI run the way a terminal user runs it
// (a child process) and the contract the generated launch.json entries must meet. The pure
// folder helpers come from the unit tier's helpers.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv from 'ajv';
import { repoRoot, venvPython } from '../../harness/paths';

export { listFiles, snapshot, tempDir } from '../../unit/scaffold/helpers';

export const bundle = path.join(repoRoot, 'dist', 'agentrl.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** dist/agentrl.js with plain node, no node_modules reachable (cwd outside the repo). */
export function cli(args: string[], cwd: string): Run {
  const r = spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', cwd, env: { PATH: process.env.PATH ?? '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function templateIds(): string[] {
  const r = cli(['new', '--list', '--json'], os.tmpdir());
  if (r.code !== 0) throw new Error(`agentrl new --list failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { id: string }[]).map((t) => t.id);
}

export function python(): string | undefined {
  const r = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? 'python3' : undefined;
}

export function venvHas(module: string): boolean {
  if (!fs.existsSync(venvPython)) return false;
  return spawnSync(venvPython, ['-c', `import ${module}`]).status === 0;
}

/**
 * The `agentrl` launch attributes: those of package.json's contributes.debuggers once the rollout
 * debugger declares them, else the attribute set agreed with it (type, request, name, config,
 * workflow, tasks, split, repeat, model {baseUrl, name, apiKeyEnv}, backbone, python, cwd, env,
 * breakOn, record, replay).
 */
export function launchSchema(): { schema: object; source: string } {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    contributes?: { debuggers?: { type: string; configurationAttributes?: { launch?: object } }[] };
  };
  const declared = pkg.contributes?.debuggers?.find((d) => d.type === 'agentrl')?.configurationAttributes?.launch;
  if (declared) return { schema: declared, source: 'package.json contributes.debuggers' };
  return {
    source: 'the attributes agreed with the debugger',
    schema: {
      type: 'object',
      required: ['config'],
      additionalProperties: false,
      properties: {
        type: { const: 'agentrl' },
        request: { const: 'launch' },
        name: { type: 'string' },
        config: { type: 'string' },
        workflow: { type: 'string' },
        tasks: {
          anyOf: [
            { type: 'integer', minimum: 1 },
            { type: 'array', items: { type: ['string', 'integer'] } },
          ],
        },
        split: { type: 'string' },
        repeat: { type: 'integer', minimum: 1 },
        model: {
          type: 'object',
          additionalProperties: false,
          properties: { baseUrl: { type: 'string' }, name: { type: 'string' }, apiKeyEnv: { type: 'string' }, timeout: { type: 'number' } },
        },
        backbone: { enum: ['native', 'trinity', 'astuner', 'ajet'] },
        python: { type: 'string' },
        cwd: { type: 'string' },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        breakOn: { type: 'array', items: { type: 'string' } },
        record: { type: 'boolean' },
        replay: { type: 'string' },
      },
    },
  };
}

/** Problems of one launch entry: schema, and the files it names exist in `workspace`. */
export function launchProblems(entry: Record<string, unknown>, workspace: string): string[] {
  const { schema, source } = launchSchema();
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  const problems: string[] = [];
  // The attributes in package.json describe the launch body; type/request/name are VS Code's own.
  const { type, request, name, ...body } = entry;
  if (type !== 'agentrl') problems.push(`type is ${String(type)}, not agentrl`);
  if (request !== 'launch') problems.push(`request is ${String(request)}, not launch`);
  if (typeof name !== 'string' || !name) problems.push('no name');
  const declared = source.startsWith('package.json');
  if (!validate(declared ? body : entry)) problems.push(...(validate.errors ?? []).map((e) => `${source}: ${e.instancePath} ${e.message}`));
  const resolve = (p: unknown) => (typeof p === 'string' ? p.replace('${workspaceFolder}', workspace) : '');
  if (!fs.statSync(resolve(entry.config), { throwIfNoEntry: false })?.isFile()) problems.push(`config ${String(entry.config)} is not a file`);
  const cwd = resolve(entry.cwd);
  if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) problems.push(`cwd ${String(entry.cwd)} is not a folder`);
  if (typeof entry.workflow === 'string') {
    const [file, fn] = entry.workflow.split('->');
    const text = fs.readFileSync(path.join(cwd, file), 'utf8');
    if (!new RegExp(`^(async\\s+)?def ${fn}\\(|^class ${fn}\\b`, 'm').test(text)) problems.push(`${file} defines no ${fn}`);
  }
  return problems;
}
