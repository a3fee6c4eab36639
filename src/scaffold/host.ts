// "Agent RL: New Workflow…": shows the steps of flow.ts with QuickPick / InputBox (Back button,
// step counter), then plans and writes the project and opens its workflow file. Loaded lazily
// (dist/scaffold-host.js) on the first run of the command.
//
// The command takes an optional argument: a folder Uri (Explorer "New RL Workflow Here"), or
// preset answers `{ framework?, template?, name?, target?, model?, data? }`; steps with a preset
// answer are not shown, so tests (and other extensions) can run it without any UI.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Logger } from '../base/log';
import {
  answer,
  check,
  checkPresets,
  isBrowse,
  isSkipped,
  move,
  normalizePresets,
  wizardSteps,
  type ChoiceValue,
  type Step,
  type WizardAnswers,
  type WizardContext,
} from './plan/flow';
import { ScaffoldError } from './plan/errors';
import { planProject } from './plan/plan';
import { readTemplateDir } from './templates/template-dir';
import { findTemplate, parseTemplateSet } from './templates/template-set';
import { langOf, type DataChoice, type TemplateSet } from './templates/types';
import { MAX_DATA_BYTES, checkDataFile } from './plan/validate';
import { writePlan } from './plan/write';
import { DEFAULT_BASE_URL } from './plan/launch';
import { SANDBOX_FALLBACK_URL, firstAnswering, readSandboxMarker } from '../workspace-files/sandbox';

export interface WizardHost {
  extensionPath: string;
  log: Logger;
}

export type NewWorkflowResult = { ok: true; projectDir: string; files: string[]; opened: string; launch: string[] } | { ok: false; error: string };

type Outcome = { back: true } | { value: string } | undefined;

function fail(host: WizardHost, error: string): NewWorkflowResult {
  host.log.warn(`New Workflow: ${error}`);
  void vscode.window.showErrorMessage(error);
  return { ok: false, error };
}

/** A path or file Uri from a command argument. */
function pathOf(v: unknown): string | undefined {
  if (v instanceof vscode.Uri) return v.scheme === 'file' ? v.fsPath : undefined;
  return typeof v === 'string' && v ? v : undefined;
}

function dataOf(v: unknown): DataChoice | undefined {
  if (v === 'sample') return { kind: 'sample' };
  if (v && typeof v === 'object' && (v as DataChoice).kind === 'sample') return { kind: 'sample' };
  const p = pathOf(v) ?? (v && typeof v === 'object' ? pathOf((v as { path?: unknown }).path) : undefined);
  return p ? { kind: 'file', path: p } : undefined;
}

/** The command argument: a folder to start from, and/or preset answers. */
function readArgument(arg: unknown): { presets?: WizardAnswers; folder?: string } {
  if (arg instanceof vscode.Uri) {
    const p = pathOf(arg);
    if (!p) return {};
    return { folder: fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ? p : path.dirname(p) };
  }
  if (!arg || typeof arg !== 'object') return {};
  const a = arg as Record<string, unknown>;
  const str = (k: string) => (typeof a[k] === 'string' ? a[k] : undefined);
  const presets: WizardAnswers = {
    framework: str('framework'),
    template: str('template'),
    name: str('name'),
    target: pathOf(a.target),
    model: str('model'),
    data: dataOf(a.data),
  };
  for (const k of Object.keys(presets) as (keyof WizardAnswers)[]) if (presets[k] === undefined) delete presets[k];
  return { presets };
}

function workspaceFolderOf(p: string): string | undefined {
  return vscode.workspace.getWorkspaceFolder(vscode.Uri.file(p))?.uri.fsPath;
}

function showPick(
  step: Extract<Step, { kind: 'pick' }>,
  a: WizardAnswers,
  counter: [number, number],
  canBack: boolean,
): Promise<Outcome | { browse: ChoiceValue }> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { value: ChoiceValue }>();
    qp.title = vscode.l10n.t('New RL Workflow: {0}', step.title);
    [qp.step, qp.totalSteps] = counter;
    qp.placeholder = step.placeholder;
    qp.ignoreFocusOut = true;
    qp.matchOnDetail = true;
    qp.items = step.choices(a).map((c) => ({ label: c.label, description: c.description, detail: c.detail, value: c.value }));
    const current = step.id === 'data' ? (a.data?.kind === 'sample' ? 'sample' : undefined) : a[step.id];
    const active = qp.items.find((i) => i.value === current);
    if (active) qp.activeItems = [active];
    qp.buttons = canBack ? [vscode.QuickInputButtons.Back] : [];
    let done = false;
    const finish = (o: Outcome | { browse: ChoiceValue }) => {
      if (done) return;
      done = true;
      resolve(o);
      qp.dispose();
    };
    qp.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && finish({ back: true }));
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0] ?? qp.activeItems[0];
      if (!item) return;
      finish(isBrowse(item.value) ? { browse: item.value } : { value: item.value });
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}

function showInput(
  step: Extract<Step, { kind: 'input' }>,
  a: WizardAnswers,
  ctx: WizardContext,
  counter: [number, number],
  canBack: boolean,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const ib = vscode.window.createInputBox();
    ib.title = vscode.l10n.t('New RL Workflow: {0}', step.title);
    [ib.step, ib.totalSteps] = counter;
    ib.prompt = step.prompt;
    ib.ignoreFocusOut = true;
    ib.value = step.initial(a);
    ib.buttons = canBack ? [vscode.QuickInputButtons.Back] : [];
    const problem = (v: string) => check(step.id, answer(step.id, a, v, ctx), ctx);
    ib.validationMessage = problem(ib.value);
    let done = false;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      resolve(o);
      ib.dispose();
    };
    ib.onDidChangeValue((v) => (ib.validationMessage = problem(v)));
    ib.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && finish({ back: true }));
    ib.onDidAccept(() => {
      const message = problem(ib.value);
      if (message) ib.validationMessage = message;
      else finish({ value: ib.value });
    });
    ib.onDidHide(() => finish(undefined));
    ib.show();
  });
}

async function browse(kind: 'folder' | 'file', a: WizardAnswers): Promise<string | undefined> {
  const base = a.target ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: kind === 'folder',
    canSelectFiles: kind === 'file',
    canSelectMany: false,
    defaultUri: base ? vscode.Uri.file(base) : undefined,
    openLabel: kind === 'folder' ? vscode.l10n.t('Create the project here') : vscode.l10n.t('Use this file'),
    filters: kind === 'file' ? { [vscode.l10n.t('JSON Lines')]: ['jsonl'] } : undefined,
  });
  return picked?.[0]?.fsPath;
}

/** Shows the steps that have no answer yet (and any the user goes Back to). undefined: cancelled. */
async function ask(ctx: WizardContext, start: WizardAnswers): Promise<WizardAnswers | undefined> {
  const steps = wizardSteps(ctx);
  let a = start;
  const missing = (i: number) => a[steps[i].id] === undefined;
  let i = move(steps, -1, 1, a, ctx);
  while (i < steps.length && !missing(i)) i = move(steps, i, 1, a, ctx);
  const firstShown = i;
  while (i < steps.length) {
    const step = steps[i];
    const shown = steps.map((_s, k) => k).filter((k) => k >= firstShown && !isSkipped(steps[k].id, a, ctx));
    const counter: [number, number] = [shown.indexOf(i) + 1, shown.length];
    const canBack = move(steps, i, -1, a, ctx) >= firstShown;
    let outcome: Outcome | { browse: ChoiceValue };
    if (step.kind === 'pick') outcome = await showPick(step, a, counter, canBack);
    else outcome = await showInput(step, a, ctx, counter, canBack);
    if (!outcome) return undefined;
    if ('back' in outcome) {
      i = move(steps, i, -1, a, ctx);
      continue;
    }
    let value: string | undefined;
    if ('browse' in outcome) {
      value = isBrowse(outcome.browse) ? await browse(outcome.browse.browse, a) : undefined;
      if (value === undefined) continue; // dialog cancelled: show the step again
    } else {
      value = outcome.value;
    }
    const next = answer(step.id, a, value, ctx);
    const problem = check(step.id, next, ctx);
    if (problem) {
      void vscode.window.showWarningMessage(problem);
      continue;
    }
    a = next;
    i = move(steps, i, 1, a, ctx);
  }
  return a;
}

function loadTemplates(host: WizardHost): TemplateSet {
  return parseTemplateSet(readTemplateDir(path.join(host.extensionPath, 'templates')));
}

export async function newWorkflow(host: WizardHost, arg?: unknown): Promise<NewWorkflowResult | undefined> {
  let set: TemplateSet;
  try {
    set = loadTemplates(host);
  } catch (e) {
    host.log.error(`New Workflow: cannot read the templates: ${(e as Error).message}`);
    return fail(host, vscode.l10n.t('Agent RL Studio cannot read its workflow templates: {0}', (e as Error).message));
  }
  const { presets, folder } = readArgument(arg);
  const ctx: WizardContext = {
    set,
    lang: langOf(vscode.env.language),
    l10n: vscode.l10n,
    folders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: f.uri.fsPath })),
    preferredTarget: folder,
    exists: (p) => fs.existsSync(p),
    checkData: (file, template) => {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st?.isFile()) return vscode.l10n.t('The data file {0} does not exist.', file);
      if (st.size > MAX_DATA_BYTES)
        return vscode.l10n.t(
          '{0} is larger than {1} MB: point the generated config at it instead of copying it into the project.',
          file,
          MAX_DATA_BYTES / 1024 / 1024,
        );
      return checkDataFile(path.basename(file), fs.readFileSync(file, 'utf8'), findTemplate(set, template)?.dataKeys ?? [], vscode.l10n);
    },
  };
  let answers: WizardAnswers = {};
  if (presets) {
    answers = normalizePresets(presets, ctx);
    // Command arguments can come from links: they may only create projects inside the workspace.
    if (answers.target && !workspaceFolderOf(answers.target)) {
      return fail(host, vscode.l10n.t('{0} is not inside an open workspace folder; pick it in the wizard instead.', answers.target));
    }
    const problem = checkPresets(answers, ctx);
    if (problem) return fail(host, problem.message);
  }
  const final = await ask(ctx, answers);
  if (!final) return undefined;
  const { template, name, target, model, data } = final;
  if (!template || !name || !target || !model || !data) return undefined;

  const baseUrl = await chooseEndpoint(workspaceFolderOf(path.join(target, name)) ?? target, !!presets);
  if (!baseUrl) return undefined;
  try {
    const plan = planProject(
      { set, template, name, model, target, data, baseUrl, launchRoot: workspaceFolderOf(path.join(target, name)) ?? target },
      vscode.l10n,
    );
    const result = writePlan(plan, vscode.l10n);
    host.log.info(`New Workflow: created ${result.projectDir} from ${template} (${result.written.length} files)`);
    await vscode.window.showTextDocument(vscode.Uri.file(plan.open), { preview: false });
    const readme = path.join(result.projectDir, 'README.md');
    const entry = result.launchNames[0];
    const message = entry
      ? vscode.l10n.t(
          'Created {0}. Its debug entry is "{1}": select it for F5 (Run and Debug keeps the entry selected before); the README says how to train.',
          name,
          entry,
        )
      : vscode.l10n.t('Created {0}; the README says how to debug and train.', name);
    const select = vscode.l10n.t('Select and Debug "{0}"', entry ?? '');
    const open = vscode.l10n.t('Open README');
    void vscode.window.showInformationMessage(message, ...(entry ? [select] : []), open).then((choice) => {
      // VS Code has no API to select a launch entry: its "debug " quick access selects the one picked (F5 runs it from then on) and starts it
      if (choice === select)
        void launchEntryKnown(entry, path.join(target, name)).then(() => vscode.commands.executeCommand('workbench.action.quickOpen', `debug ${entry}`));
      else if (choice === open) void vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.file(readme));
    });
    return { ok: true, projectDir: result.projectDir, files: result.written, opened: plan.open, launch: result.launchNames };
  } catch (e) {
    if (e instanceof ScaffoldError) return fail(host, e.message);
    host.log.error(`New Workflow: ${e instanceof Error ? (e.stack ?? e.message) : JSON.stringify(e)}`);
    return fail(host, vscode.l10n.t('Could not create the project: {0}. Nothing was kept.', (e as Error).message));
  }
}

/**
 * The model endpoint of the new launch entry: one that answers now (the sandbox's model, a
 * local server on :8089 or :8000), so the first F5 works; otherwise the user is asked
 * (presets, as from tests and links, take the default instead of asking).
 */
async function chooseEndpoint(root: string, preset: boolean): Promise<string | undefined> {
  const marker = readSandboxMarker(root);
  const found = await firstAnswering([...(marker?.model ? [marker.model] : []), SANDBOX_FALLBACK_URL, DEFAULT_BASE_URL]);
  if (found || preset) return found ?? DEFAULT_BASE_URL;
  return vscode.window
    .showInputBox({
      title: vscode.l10n.t('Model endpoint for debugging'),
      prompt: vscode.l10n.t('No model server answers on this machine. The OpenAI-compatible endpoint the debug entry should use:'),
      value: DEFAULT_BASE_URL,
      ignoreFocusOut: true,
      validateInput: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : vscode.l10n.t('An http(s) URL, e.g. {0}', DEFAULT_BASE_URL)),
    })
    .then((v) => v?.trim());
}

/** Resolves once VS Code's settings list the launch entry `name` (launch.json was just written and
 *  is read back asynchronously; a picker opened before would lack the entry), or after 5 s. */
function launchEntryKnown(name: string, projectDir: string): Promise<void> {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(projectDir));
  const has = () => (vscode.workspace.getConfiguration('launch', folder).get<{ name?: unknown }[]>('configurations') ?? []).some((c) => c?.name === name);
  if (has()) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      sub.dispose();
      clearTimeout(timer);
      resolve();
    };
    const sub = vscode.workspace.onDidChangeConfiguration(() => has() && done());
    const timer = setTimeout(done, 5000);
  });
}
