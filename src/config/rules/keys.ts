// Per-key checks driven by schema annotations: registry names ("did you mean"), dotted
// class paths found (or not) in the workspace, local paths that do not exist, deprecated /
// do-not-set / dead keys; keys, values and names newer than the targeted Trinity release are
// reported through schema/version-findings.ts, at this point of the walk.
import type { ConfigKind } from '../../feature-api/config-checker';
import { FindingSink, suggest, type Fix } from '../core/findings';
import { doc, l10n, list } from '../core/l10n-text';
import { KIND_LABEL } from '../core/kind-label';
import { UNKNOWN, type Resolution } from '../interp/resolve';
import { AGENT_PLUGIN_NAMES, REGISTRIES, type RegistryId } from '../names/registries';
import { classifyPath, configAncestors, resolveLocalPath } from '../core/paths';
import { isInterpolation } from '../schema/coerce';
import type { Site } from '../schema/sites';
import { newerKeyOrValue, newerName, type VersionSource } from '../schema/version-findings';
import { codeVisible, isLocation, type PyRegistration, type PythonIndex } from '../workspace/pyindex';
import * as path from 'path';
import { valueText } from '../../base/value-text';

export interface KeyRuleEnv {
  kind: ConfigKind;
  sites: Site[];
  resolution: Resolution;
  sink: FindingSink;
  python?: PythonIndex;
  roots: readonly string[];
  file?: string;
  trinityVersion: string;
  /** Where `trinityVersion` came from, for messages. */
  trinityVersionSource?: VersionSource;
  checkPaths: boolean;
}

const DEPRECATED_RENAME: Record<string, string> = { runner_num: 'runner_per_model', warmup_style: 'lr_scheduler_type', task_selector: 'data_selector' };

/** Resolved string value of a site (interpolations resolved), or undefined. */
function valueOf(env: KeyRuleEnv, s: Site): string | undefined {
  const r = env.resolution.values.size ? env.resolution.values.get(s.where) : undefined;
  if (r === UNKNOWN) return undefined;
  const v = r !== undefined ? r : s.node.kind === 'scalar' ? s.node.value : undefined;
  if (v === null || v === undefined || typeof v === 'object') return undefined;
  if (isInterpolation(v)) return undefined;
  return valueText(v);
}

const NO_REGISTRATIONS: readonly PyRegistration[] = [];
/** Per set of workspace registrations (a new array when the Python index changes). */
const namesMemo = new WeakMap<readonly PyRegistration[], Map<string, ReadonlySet<string>>>();

/** Names a registry accepts here: built-ins, workspace registrations, plugin names. */
export function knownNames(env: Pick<KeyRuleEnv, 'kind' | 'python'>, reg: RegistryId): ReadonlySet<string> {
  const registered = env.python?.registered(reg) ?? NO_REGISTRATIONS;
  let memo = namesMemo.get(registered);
  if (!memo) {
    memo = new Map();
    namesMemo.set(registered, memo);
  }
  const key = `${env.kind}|${reg}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const names = new Set(Object.keys(REGISTRIES[reg].names));
  for (const r of registered) names.add(r.name);
  const plugin = env.kind === 'trinity' ? undefined : AGENT_PLUGIN_NAMES[env.kind];
  if (plugin && reg === 'workflow') plugin.workflow.forEach((n) => names.add(n));
  if (plugin && reg === 'monitor') plugin.monitor.forEach((n) => names.add(n));
  memo.set(key, names);
  return names;
}

function checkRegistry(env: KeyRuleEnv, s: Site, reg: RegistryId): void {
  const value = valueOf(env, s);
  if (value === undefined || value === '') return;
  // task_pipeline operators are Data-Juicer ops, not experience operators
  if (reg === 'experience_operator' && !s.where.includes('experience_pipeline')) return;
  const names = knownNames(env, reg);
  if (names.has(value)) {
    newerName(env, s, reg, value, () => env.python?.registered(reg) ?? NO_REGISTRATIONS);
    return;
  }
  const title = REGISTRIES[reg].title;
  if (value.includes('.')) {
    // a dotted class path: imported at run time, found here if the package is in the workspace
    const found = env.python?.resolveDotted(value, extraRoots(env));
    if (found && isLocation(found)) return;
    const mod = value.slice(0, value.lastIndexOf('.'));
    if (found && !isLocation(found)) {
      env.sink.add({
        severity: 'warning',
        code: 'names.unresolved-class',
        message: l10n.t('Class `{0}` is not defined in `{1}` ({2}).', found.missingClass, mod, path.basename(found.file)),
        path: s.where,
        span: s.span,
      });
    } else if (value.split('.')[0] !== 'trinity' && codeVisible(mod, [...env.roots, ...extraRoots(env)])) {
      env.sink.add({
        severity: 'warning',
        code: 'names.unresolved-module',
        message: l10n.t('Cannot find module `{0}` in the workspace; `{1}` will fail to import.', mod, value),
        path: s.where,
        span: s.span,
      });
    }
    return;
  }
  const close = suggest(value, names);
  const fixes: Fix[] = close.map((c, i) => ({ title: l10n.t("Change to '{0}'", c), edits: [{ span: s.span, newText: c }], preferred: i === 0 }));
  env.sink.add({
    severity: 'warning',
    code: 'names.unknown',
    message: close.length
      ? l10n.t(
          `'{0}' is not a registered {1} (\`{2}\`); did you mean '{3}'? Unless a plugin registers it, Trinity fails with "Invalid module key".`,
          value,
          title,
          REGISTRIES[reg].pyName,
          close[0],
        )
      : l10n.t(
          `'{0}' is not a registered {1} (\`{2}\`) Unless a plugin registers it, Trinity fails with "Invalid module key".`,
          value,
          title,
          REGISTRIES[reg].pyName,
        ),
    path: s.where,
    span: s.span,
    fixes,
  });
}

const extraRoots = (env: KeyRuleEnv) => configAncestors(env.file);

function checkPath(env: KeyRuleEnv, s: Site): void {
  const value = valueOf(env, s);
  if (!value || !env.checkPaths || classifyPath(value) !== 'local') return;
  const r = resolveLocalPath(value, env.roots, env.file);
  if (r.found || !r.checkable) return;
  // outputs are created by the run; only inputs must exist
  if (/save_path|output|checkpoint|cache|db_url|input_save_path|train_output_path/.test(s.where)) return;
  if (s.where.endsWith('experience_buffer.path') || /\.db$|\.sqlite$/.test(value)) return;
  env.sink.add({
    severity: 'warning',
    code: 'paths.missing',
    message: l10n.t('Path `{0}` does not exist (looked for {1}).', value, list(r.candidates.map((c) => `\`${c}\``))),
    path: s.where,
    span: s.span,
  });
}

/** `x-strictChoices` marks ASTuner / AgentJet string fields whose upstream code accepts only the
 *  listed values (compared with `==`; anything else falls through to an error or a no-op). */
function checkChoice(env: KeyRuleEnv, s: Site, choices: string[]): void {
  const value = valueOf(env, s);
  if (value === undefined || choices.includes(value)) return;
  const close = suggest(value, choices, 1);
  env.sink.add({
    severity: 'warning',
    code: 'agent.unknown-choice',
    message: l10n.t("`{0}`: '{1}' is not one of {2}.", s.where, value, list(choices.map((c) => `'${c}'`))),
    path: s.where,
    span: s.span,
    fixes: close.map((c) => ({ title: l10n.t("Change to '{0}'", c), edits: [{ span: s.span, newText: c }], preferred: true })),
  });
}

export function runKeyRules(env: KeyRuleEnv): void {
  for (const s of env.sites) {
    const sch = s.schema;
    const key = String(s.path[s.path.length - 1]);
    const span = s.keySpan ?? s.span;
    if (sch['x-deprecated'] && !(s.node.kind === 'scalar' && s.node.py === 'null')) {
      const to = DEPRECATED_RENAME[key];
      env.sink.add({
        severity: 'warning',
        code: 'trinity.deprecated-key',
        message: l10n.t('`{0}` is deprecated: {1}.', s.where, sch['x-deprecated']),
        path: s.where,
        span,
        tags: ['deprecated'],
        fixes: to ? [{ title: l10n.t('Rename to `{0}`', to), edits: [{ span, newText: to }], preferred: true }] : undefined,
      });
    }
    if (sch['x-doNotSet'] && !(s.node.kind === 'scalar' && s.node.py === 'null')) {
      env.sink.add({
        severity: 'info',
        code: 'trinity.do-not-set',
        // each framework's own keys: an AgentJet key is not set by Trinity
        message: l10n.t('`{0}` is set by {1} itself: {2}', s.where, KIND_LABEL[env.kind], doc(sch.description ?? '', sch['x-zh'] ?? '')),
        path: s.where,
        span,
        tags: ['unnecessary'],
      });
    }
    if (sch['x-dead']) {
      env.sink.add({
        severity: 'info',
        code: 'agent.dead-key',
        message: doc(`${sch['x-dead']}`, sch['x-zh'] ?? ''),
        path: s.where,
        span,
        tags: ['unnecessary'],
      });
    }
    newerKeyOrValue(env, s, () => valueOf(env, s));
    const reg = sch['x-registry'] as RegistryId | undefined;
    if (reg && REGISTRIES[reg]) checkRegistry(env, s, reg);
    else if (sch['x-strictChoices'] && sch['x-choices'] && env.kind !== 'trinity') checkChoice(env, s, sch['x-choices']);
    if (sch['x-path']) checkPath(env, s);
  }
}
