// The "New Workflow" wizard as data: its steps, their choices, how an answer is recorded and
// checked, and which steps are skipped. Pure (no vscode): the scaffold host shows these steps with
// QuickPick / InputBox and a Back button, and tests drive it with preset answers.
import * as path from 'path';
import type { L10n } from '../../base/l10n';
import type { DataChoice, Lang, TemplateSet } from '../templates/types';
import { localized } from '../templates/types';

/** A quick pick shows text as is: the templates' Markdown code spans (`astuner:`) lose their backticks. */
function plain(s: string): string;
function plain(s: string | undefined): string | undefined;
function plain(s: string | undefined): string | undefined {
  return s?.replace(/`([^`]*)`/g, '$1');
}
import { checkModel, checkName } from './validate';

export const DEFAULT_MODEL = 'Qwen/Qwen2.5-0.5B-Instruct';

export type StepId = 'framework' | 'template' | 'name' | 'target' | 'model' | 'data';
const STEP_IDS: readonly StepId[] = ['framework', 'template', 'name', 'target', 'model', 'data'];

export interface WizardAnswers {
  framework?: string;
  template?: string;
  name?: string;
  /** Absolute folder the project folder is created in. */
  target?: string;
  model?: string;
  data?: DataChoice;
}

/** A pick that opens a dialog: a folder (target) or a file (data). */
export interface Browse {
  browse: 'folder' | 'file';
}
export type ChoiceValue = string | Browse;

export interface Choice {
  label: string;
  description?: string;
  detail?: string;
  value: ChoiceValue;
}

export interface PickStep {
  kind: 'pick';
  id: StepId;
  title: string;
  placeholder: string;
  choices(a: WizardAnswers): Choice[];
}

export interface InputStep {
  kind: 'input';
  id: StepId;
  title: string;
  prompt: string;
  initial(a: WizardAnswers): string;
}

export type Step = PickStep | InputStep;

export interface WizardContext {
  set: TemplateSet;
  lang: Lang;
  l10n: L10n;
  /** Workspace folders (absolute paths). */
  folders: { name: string; path: string }[];
  /** The folder the command was started on (Explorer context menu). */
  preferredTarget?: string;
  /** Whether something exists at an absolute path. */
  exists(p: string): boolean;
  /** Checks a data file for a template; returns a message or undefined. */
  checkData(file: string, template: string): string | undefined;
}

export function isBrowse(v: ChoiceValue): v is Browse {
  return typeof v === 'object' && v !== null && 'browse' in v;
}

function templatesOf(ctx: WizardContext, framework: string | undefined) {
  return ctx.set.templates.filter((t) => t.framework === framework);
}

/** The folder a project lands in before the target step is answered. */
function likelyTarget(a: WizardAnswers, ctx: WizardContext): string | undefined {
  return a.target ?? ctx.preferredTarget ?? ctx.folders[0]?.path;
}

export function wizardSteps(ctx: WizardContext): Step[] {
  const { l10n, lang, set } = ctx;
  return [
    {
      kind: 'pick',
      id: 'framework',
      title: l10n.t('Framework'),
      placeholder: l10n.t('Which training framework is the workflow for?'),
      choices: () =>
        set.frameworks
          .filter((f) => templatesOf(ctx, f.id).length > 0)
          .map((f) => ({ label: plain(localized(f.label, lang)), detail: plain(localized(f.detail, lang)), value: f.id })),
    },
    {
      kind: 'pick',
      id: 'template',
      title: l10n.t('Template'),
      placeholder: l10n.t('What kind of workflow?'),
      choices: (a) =>
        templatesOf(ctx, a.framework).map((t) => ({
          label: plain(localized(t.label, lang)),
          description: t.id,
          detail: plain(localized(t.detail, lang)),
          value: t.id,
        })),
    },
    {
      kind: 'input',
      id: 'name',
      title: l10n.t('Name'),
      prompt: l10n.t('Project name: a Python identifier, also the name of the new folder'),
      initial: (a) => a.name ?? freeDefaultName(a, ctx),
    },
    {
      kind: 'pick',
      id: 'target',
      title: l10n.t('Folder'),
      placeholder: l10n.t('Where should the project folder be created?'),
      choices: () => targetChoices(ctx),
    },
    {
      kind: 'input',
      id: 'model',
      title: l10n.t('Model'),
      prompt: l10n.t('The model to train: a Hugging Face id or a local path'),
      initial: (a) => a.model ?? DEFAULT_MODEL,
    },
    {
      kind: 'pick',
      id: 'data',
      title: l10n.t('Data'),
      placeholder: l10n.t('Where do the tasks come from?'),
      choices: (a) => dataChoices(a, ctx),
    },
  ];
}

/** The template's default name, or name_2, name_3... when that folder already exists. */
function freeDefaultName(a: WizardAnswers, ctx: WizardContext): string {
  const base = ctx.set.templates.find((t) => t.id === a.template)?.defaultName ?? 'rl_agent';
  const target = likelyTarget(a, ctx);
  if (!target) return base;
  for (let i = 1; ; i++) {
    const name = i === 1 ? base : `${base}_${i}`;
    if (!ctx.exists(path.join(target, name))) return name;
  }
}

function targetChoices(ctx: WizardContext): Choice[] {
  const out: Choice[] = [];
  const seen = new Set<string>();
  const add = (p: string, detail?: string) => {
    if (seen.has(p)) return;
    seen.add(p);
    out.push({ label: path.basename(p) || p, description: p, detail, value: p });
  };
  if (ctx.preferredTarget) add(ctx.preferredTarget, ctx.l10n.t('The folder you started from'));
  for (const f of ctx.folders) add(f.path, ctx.l10n.t('Workspace folder'));
  out.push({ label: ctx.l10n.t('Browse…'), detail: ctx.l10n.t('Choose another folder'), value: { browse: 'folder' } });
  return out;
}

function dataChoices(a: WizardAnswers, ctx: WizardContext): Choice[] {
  const template = ctx.set.templates.find((t) => t.id === a.template);
  const ds = template ? ctx.set.datasets[template.dataset] : undefined;
  const rows = ds ? ds.files['train.jsonl'].split('\n').filter((l) => l.trim()).length : 0;
  return [
    {
      label: ctx.l10n.t('Bundled sample'),
      detail: ds ? ctx.l10n.t('{0} real {1} rows ({2}), copied into data/', rows, ds.title, ds.source) : undefined,
      value: 'sample',
    },
    {
      label: ctx.l10n.t('Choose a JSONL file…'),
      detail: template ? ctx.l10n.t('One task per line, with the keys {0}; copied into data/', template.dataKeys.join(', ')) : undefined,
      value: { browse: 'file' },
    },
  ];
}

/** Records a step's answer (a picked value, typed text, or a browsed path). */
export function answer(id: StepId, a: WizardAnswers, value: string, ctx: WizardContext): WizardAnswers {
  switch (id) {
    case 'framework': {
      const own = templatesOf(ctx, value);
      const template = own.some((t) => t.id === a.template) ? a.template : own.length === 1 ? own[0].id : undefined;
      return { ...a, framework: value, template };
    }
    case 'template':
      return { ...a, template: value, framework: ctx.set.templates.find((t) => t.id === value)?.framework ?? a.framework };
    case 'name':
      return { ...a, name: value.trim() };
    case 'target':
      return { ...a, target: path.resolve(value) };
    case 'model':
      return { ...a, model: value.trim() };
    case 'data':
      return { ...a, data: value === 'sample' ? { kind: 'sample' } : { kind: 'file', path: path.resolve(value) } };
  }
}

/** What is wrong with the answer to `id`, given everything answered so far; undefined: fine. */
export function check(id: StepId, a: WizardAnswers, ctx: WizardContext): string | undefined {
  const { l10n } = ctx;
  switch (id) {
    case 'framework':
      return templatesOf(ctx, a.framework).length ? undefined : l10n.t("Unknown framework '{0}'.", a.framework ?? '');
    case 'template': {
      const t = ctx.set.templates.find((x) => x.id === a.template);
      if (!t) return l10n.t("Unknown template '{0}'.", a.template ?? '');
      return a.framework && t.framework !== a.framework ? l10n.t("Template '{0}' is not a {1} template.", t.id, a.framework) : undefined;
    }
    case 'name': {
      const problem = checkName(a.name ?? '', l10n);
      const target = likelyTarget(a, ctx);
      if (problem || !target || !a.name) return problem;
      return ctx.exists(path.join(target, a.name)) ? l10n.t('{0} already exists in {1}: choose another name.', a.name, target) : undefined;
    }
    case 'target':
      if (!a.target || !ctx.exists(a.target)) return l10n.t('The folder {0} does not exist.', a.target ?? '');
      if (a.name && ctx.exists(path.join(a.target, a.name))) return l10n.t('{0} already exists in {1}: choose another name.', a.name, a.target);
      return undefined;
    case 'model':
      return checkModel(a.model ?? '', l10n);
    case 'data':
      if (!a.data) return l10n.t('Choose where the tasks come from.');
      return a.data.kind === 'file' ? ctx.checkData(a.data.path, a.template ?? '') : undefined;
  }
}

/** The template step is skipped when the framework has a single template (it is then preset). */
export function isSkipped(id: StepId, a: WizardAnswers, ctx: WizardContext): boolean {
  return id === 'template' && templatesOf(ctx, a.framework).length === 1;
}

/** The index of the next (dir 1) or previous (dir -1) shown step from `from`; -1 / length past the ends. */
export function move(steps: readonly Step[], from: number, dir: 1 | -1, a: WizardAnswers, ctx: WizardContext): number {
  let i = from + dir;
  while (i >= 0 && i < steps.length && isSkipped(steps[i].id, a, ctx)) i += dir;
  return i;
}

/** Preset answers as the steps would have recorded them (the framework follows from the template). */
export function normalizePresets(a: WizardAnswers, ctx: WizardContext): WizardAnswers {
  const out: WizardAnswers = { ...a };
  if (out.template && !out.framework) out.framework = ctx.set.templates.find((t) => t.id === out.template)?.framework;
  if (out.framework && !out.template && isSkipped('template', out, ctx)) out.template = templatesOf(ctx, out.framework)[0]?.id;
  if (out.target) out.target = path.resolve(out.target);
  if (out.data?.kind === 'file') out.data = { kind: 'file', path: path.resolve(out.data.path) };
  return out;
}

/** Preset answers (normalized) in step order: the first problem, or undefined. */
export function checkPresets(filled: WizardAnswers, ctx: WizardContext): { step: StepId; message: string } | undefined {
  for (const id of STEP_IDS) {
    if (filled[id] === undefined) continue;
    const message = check(id, filled, ctx);
    if (message) return { step: id, message };
  }
  return undefined;
}
