// What generating a project means, decided before anything is written: every file with its
// content, and the new text of .vscode/launch.json. Reads the disk (does the folder exist? the
// user's data file, the current launch.json) but never writes; write.ts applies the plan.
import * as fs from 'fs';
import * as path from 'path';
import { launchEntries, mergeLaunchJson } from './launch';
import type { L10n } from '../../base/l10n';
import { ScaffoldError } from './errors';
import { renderTemplateFiles, renderText } from '../templates/render';
import { TemplateSetError, findTemplate } from '../templates/template-set';
import type { DataChoice, TemplateSet } from '../templates/types';
import { MAX_DATA_BYTES, checkDataFile, checkModel, checkName } from './validate';

export interface GenerateRequest {
  set: TemplateSet;
  template: string;
  name: string;
  model: string;
  /** Absolute folder the project folder `<name>` is created in. */
  target: string;
  data: DataChoice;
  /** Folder whose .vscode/launch.json receives the debug entries; null: leave launch.json alone. */
  launchRoot: string | null;
  /** The OpenAI-compatible endpoint the launch entries point the debugger at. */
  baseUrl?: string;
  /** Create `target` when it does not exist (the CLI); the wizard only offers existing folders. */
  createTarget?: boolean;
}

export interface PlannedFile {
  path: string;
  content: string;
}

export interface GeneratePlan {
  projectDir: string;
  target: string;
  createTarget: boolean;
  files: PlannedFile[];
  /** The file to open afterwards (the workflow). */
  open: string;
  configs: string[];
  launch?: { file: string; before: string | undefined; text: string; names: string[] };
}

function lstat(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** `rel` inside `root`, or an error: template paths must never leave the project folder. */
function inside(root: string, rel: string): string {
  const abs = path.resolve(root, rel);
  if (path.isAbsolute(rel) || (abs !== root && !abs.startsWith(root + path.sep))) {
    throw new TemplateSetError(`template path leaves the project folder: ${rel}`);
  }
  return abs;
}

function countRows(text: string): number {
  return text.split('\n').filter((l) => l.trim()).length;
}

/** The project's data/ files and how the README describes them. */
function dataFiles(req: GenerateRequest, keys: readonly string[], datasetId: string, l10n: L10n) {
  if (req.data.kind === 'file') {
    const file = path.resolve(req.data.path);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) throw new ScaffoldError(l10n.t('The data file {0} does not exist.', file));
    if (st.size > MAX_DATA_BYTES) {
      throw new ScaffoldError(
        l10n.t('{0} is larger than {1} MB: point the generated config at it instead of copying it into the project.', file, MAX_DATA_BYTES / 1024 / 1024),
      );
    }
    const text = fs.readFileSync(file, 'utf8');
    const problem = checkDataFile(path.basename(file), text, keys, l10n);
    if (problem) throw new ScaffoldError(problem);
    return {
      files: { 'train.jsonl': text },
      evalFile: 'train.jsonl',
      description: `${countRows(text)} rows copied from ${path.basename(file)}`,
    };
  }
  const ds = req.set.datasets[datasetId];
  const test = ds.files['test.jsonl'];
  return {
    files: ds.files,
    evalFile: test ? 'test.jsonl' : 'train.jsonl',
    description: `${countRows(ds.files['train.jsonl'])} real ${ds.title} training rows${test ? ` and ${countRows(test)} test rows` : ''} from ${ds.source}`,
  };
}

export function planProject(req: GenerateRequest, l10n: L10n): GeneratePlan {
  const template = findTemplate(req.set, req.template);
  if (!template) {
    throw new ScaffoldError(l10n.t("Unknown template '{0}'. Templates: {1}.", req.template, req.set.templates.map((t) => t.id).join(', ')));
  }
  const problem = checkName(req.name, l10n) ?? checkModel(req.model, l10n);
  if (problem) throw new ScaffoldError(problem);

  const target = path.resolve(req.target);
  const targetStat = fs.statSync(target, { throwIfNoEntry: false });
  if (targetStat && !targetStat.isDirectory()) throw new ScaffoldError(l10n.t('{0} is not a folder.', target));
  if (!targetStat && !req.createTarget) throw new ScaffoldError(l10n.t('The folder {0} does not exist.', target));
  const projectDir = path.join(target, req.name);
  if (lstat(projectDir)) {
    throw new ScaffoldError(l10n.t('{0} already exists: choose another name or folder. Nothing was changed.', projectDir));
  }

  const data = dataFiles(req, template.dataKeys, template.dataset, l10n);
  const base = { ...template.vars, name: req.name, model: req.model };
  const launchName = renderText(template.launch[0].name, base, {}, `templates/${template.id}/template.json`);
  const vars = {
    ...base,
    evalFile: data.evalFile,
    evalSplit: data.evalFile.replace(/\.jsonl$/, ''),
    dataDescription: data.description,
    configFiles: template.configs.join(' '),
    launchName,
  };
  const rendered = renderTemplateFiles(req.set, template, vars);
  for (const [f, text] of Object.entries(data.files)) rendered[`data/${f}`] = text;
  const files = Object.entries(rendered).map(([rel, content]) => ({ path: inside(projectDir, rel), content }));

  const plan: GeneratePlan = {
    projectDir,
    target,
    createTarget: !targetStat,
    files,
    open: inside(projectDir, template.open),
    configs: template.configs.map((c) => inside(projectDir, c)),
  };
  if (req.launchRoot !== null) {
    const root = path.resolve(req.launchRoot);
    const rel = path.relative(root, projectDir);
    if (rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel))
      throw new ScaffoldError(l10n.t('{0} is not inside {1}, whose launch.json would debug it.', projectDir, root));
    const file = launchJsonPath(path.join(root, '.vscode', 'launch.json'), l10n);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && !st.isFile()) throw new ScaffoldError(l10n.t('{0} is not a file.', file));
    const before = st ? fs.readFileSync(file, 'utf8') : undefined;
    const specs = template.launch.map((s) => ({ ...s, name: renderText(s.name, base, {}, `templates/${template.id}/template.json`) }));
    const entries = launchEntries(specs, rel.split(path.sep).join('/'), req.model, req.baseUrl);
    const merged = mergeLaunchJson(before, entries, l10n, path.relative(root, file) || file);
    plan.launch = { file, before, ...merged };
  }
  return plan;
}

/** The file a `.vscode/launch.json` path stands for: a symbolic link is followed (the merge is
 *  written to its target, so the link and whatever shares the target keep working); a link
 *  whose target is missing is refused rather than replaced by a regular file. */
function launchJsonPath(file: string, l10n: L10n): string {
  if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return file;
  try {
    return fs.realpathSync(file);
  } catch {
    const to = path.resolve(path.dirname(file), fs.readlinkSync(file));
    throw new ScaffoldError(l10n.t('{0} is a symbolic link to {1}, which does not exist: create the file or remove the link.', file, to));
  }
}
