// Reads the scaffold templates from a map of files (path under templates/ -> text): from disk in
// the extension (templates/ ships in the VSIX), embedded in the single-file CLI. A broken
// template is a bug of ours, so problems are thrown in English with the file that has them.
// templates/template.schema.json documents template.json in full (the unit tests validate every
// template against it); here only what generation relies on is checked, so the CLI stays small.
import type { Dataset, FrameworkInfo, Template, TemplateManifest, TemplateSet } from './types';

export type TemplateFiles = Readonly<Record<string, string>>;

export class TemplateSetError extends Error {
  override readonly name = 'TemplateSetError';
}

function json<T>(files: TemplateFiles, file: string): T {
  const text = files[file];
  if (text === undefined) throw new TemplateSetError(`templates/${file} is missing`);
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new TemplateSetError(`templates/${file}: ${(e as Error).message}`);
  }
}

/** Files directly under `dir/`, by name relative to it (sub-folders included). */
function under(files: TemplateFiles, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, text] of Object.entries(files)) if (p.startsWith(dir + '/')) out[p.slice(dir.length + 1)] = text;
  return out;
}

function topFolders(files: TemplateFiles): string[] {
  return [...new Set(Object.keys(files).filter((p) => p.includes('/')).map((p) => p.split('/')[0]))].sort();
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
/** A relative path that stays inside the project folder. */
const isInnerPath = (v: unknown): v is string => isString(v) && !v.startsWith('/') && !v.includes('\\') && !v.split('/').some((s) => s === '..' || s === '' || s === '.');

/** The shape generation relies on; returns the first problem. */
function shapeProblem(m: Record<string, unknown>): string | undefined {
  const localized = (v: unknown) => !!v && typeof v === 'object' && isString((v as Record<string, unknown>).en);
  if (!isString(m.id) || !isString(m.framework) || !isString(m.dataset)) return 'id, framework and dataset must be strings';
  if (typeof m.order !== 'number') return 'order must be a number';
  if (!localized(m.label) || !localized(m.detail)) return 'label and detail need an "en" text';
  if (!isString(m.defaultName) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(m.defaultName)) return 'defaultName must be a Python identifier';
  if (!isStrings(m.dataKeys) || m.dataKeys.length === 0) return 'dataKeys must list the keys of a data row';
  if (!isInnerPath(m.open) || !Array.isArray(m.configs) || !m.configs.length || !m.configs.every(isInnerPath)) return 'open and configs must be paths inside the project';
  if (!m.vars || typeof m.vars !== 'object' || !Object.values(m.vars).every((v) => typeof v === 'string')) return 'vars must map names to strings';
  if (!Array.isArray(m.launch) || m.launch.length === 0) return 'launch must list at least one entry';
  for (const l of m.launch as Record<string, unknown>[]) {
    if (!l || !isString(l.name) || !isInnerPath(l.config) || (l.cwd !== '.' && l.cwd !== '..')) return 'each launch entry needs a name, a config path inside the project and cwd "." or ".."';
  }
  return undefined;
}

function checkManifest(m: TemplateManifest, t: Template, frameworks: FrameworkInfo[], datasets: Record<string, Dataset>): void {
  const where = `templates/${t.id}/template.json`;
  const fail = (what: string): never => {
    throw new TemplateSetError(`${where}: ${what}`);
  };
  if (!frameworks.some((f) => f.id === m.framework)) fail(`unknown framework '${m.framework}' (templates/frameworks.json)`);
  if (!datasets[m.dataset]) fail(`unknown dataset '${m.dataset}' (templates/_data/)`);
  for (const f of [m.open, ...m.configs, ...m.launch.map((l) => l.config)]) {
    if (t.files[f] === undefined) fail(`names '${f}', which the template does not have`);
  }
}

export function parseTemplateSet(files: TemplateFiles): TemplateSet {
  const frameworks = json<FrameworkInfo[]>(files, 'frameworks.json');

  const datasets: Record<string, Dataset> = {};
  for (const id of topFolders(under(files, '_data'))) {
    const meta = json<{ title: string; source: string }>(files, `_data/${id}/dataset.json`);
    const jsonl = Object.fromEntries(Object.entries(under(files, `_data/${id}`)).filter(([f]) => f.endsWith('.jsonl')));
    if (!jsonl['train.jsonl']) throw new TemplateSetError(`templates/_data/${id} has no train.jsonl`);
    datasets[id] = { id, title: meta.title, source: meta.source, files: jsonl };
  }

  const templates: Template[] = [];
  for (const id of topFolders(files).filter((d) => !d.startsWith('_'))) {
    const manifest = json<TemplateManifest>(files, `${id}/template.json`);
    const problem = shapeProblem(manifest as unknown as Record<string, unknown>);
    if (problem) throw new TemplateSetError(`templates/${id}/template.json: ${problem}`);
    if (manifest.id !== id) throw new TemplateSetError(`templates/${id}/template.json: id '${manifest.id}' differs from its folder`);
    const own = under(files, id);
    delete own['template.json'];
    const template: Template = { ...manifest, files: own };
    checkManifest(manifest, template, frameworks, datasets);
    templates.push(template);
  }
  const rank = (t: Template) => frameworks.findIndex((f) => f.id === t.framework);
  templates.sort((a, b) => rank(a) - rank(b) || a.order - b.order || a.id.localeCompare(b.id));
  return { frameworks, templates, datasets, partials: under(files, '_partials') };
}

export function findTemplate(set: TemplateSet, id: string): Template | undefined {
  return set.templates.find((t) => t.id === id);
}
