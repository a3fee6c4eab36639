// One analysis of one YAML text: preflight limits → parse (chunked and cached for large
// documents) → kind detection → schema → interpolations → per-key rules → semantic rules
// (per stage) → cross-file agreement. Pure apart from reading files the config points at.
import type { ConfigKind } from '../../feature-api/config-checker';
import { ConfigIndex, crossFileFindings, extractFacts, type JobFacts } from './crossfile';
import { detectKind, likeliestKind, type Detection, type KindGuess } from '../core/detect-kind';
import { KIND_LABEL } from '../core/kind-label';
import { FindingSink, type Finding } from '../core/findings';
import { l10n, verbatim } from '../core/l10n-text';
import { resolveInterpolations, type Resolution } from '../interp/resolve';
import { ConfigView, trinityViews } from '../rules/view';
import { runAgentRules } from '../rules/agent/rules';
import type { Rule, RuleContext, RuleEnv } from '../rules/context';
import { runKeyRules } from '../rules/keys';
import { algorithmRule } from '../rules/trinity/algorithm';
import { bufferRule } from '../rules/trinity/buffer';
import { explorerRule } from '../rules/trinity/explorer';
import { gpuRule } from '../rules/trinity/gpu';
import { lengthRule } from '../rules/trinity/lengths';
import { modeRule } from '../rules/trinity/mode';
import { modelRule } from '../rules/trinity/model';
import { physicalRule } from '../rules/trinity/physical';
import { PARALLEL_RULES } from '../rules/trinity/parallel';
import { agentscopeTunerRule } from '../rules/trinity/agentscope';
import { syncRule } from '../rules/trinity/sync';
import { trainerRule } from '../rules/trinity/trainer';
import { m2poRule } from '../rules/trinity/m2po';
import { verlEngineRule } from '../rules/trinity/verl';
import { LATEST_TRINITY, TRINITY_VERSIONS } from '../schema/schemas';
import { validateSchema } from '../schema/validate';
import { collectSites, type Site } from '../schema/sites';
import { LineIndex } from '../core/text';
import { findPlaceholders, renderPlaceholders } from '../core/placeholders';
import type { PythonIndex } from '../workspace/pyindex';
import { modelineVersion, resolveTrinityVersion, type PackageInForce, type TrinityVersionInForce } from '../workspace/trinity-version';
import { parseYaml, type ParseCache, type ParseResult } from '../yaml/parse';
import { deref, type VNode } from '../yaml/tree';
import type { VersionSource } from '../schema/version-findings';

export const TRINITY_RULES: Rule[] = [
  modeRule,
  modelRule,
  lengthRule,
  algorithmRule,
  m2poRule,
  gpuRule,
  ...PARALLEL_RULES,
  syncRule,
  explorerRule,
  bufferRule,
  trainerRule,
  verlEngineRule,
  agentscopeTunerRule,
  physicalRule,
];

export interface EngineOptions {
  /** Workspace folders (CLI: --root, default cwd). */
  roots?: readonly string[];
  /** Extra environment for `${oc.env:…}` (over process.env). */
  env?: Record<string, string>;
  /** `{ glob: kind }` overrides (agentrl.config.files). */
  globs?: Record<string, string>;
  forcedKind?: ConfigKind | 'auto';
  /** A file the user named (on `agentrl check`'s command line): when its content matches no
   *  kind it is checked as the likeliest one, with a finding saying so, instead of skipped. */
  guessKind?: boolean;
  /** A kind previously detected for this document: kept while its YAML is broken. */
  stickyKind?: ConfigKind | null;
  trinityVersion?: string;
  /** The version in force for the workspace and where it came from (a `trinity@X` modeline overrides it). */
  trinity?: TrinityVersionInForce;
  /** Where `trinityVersion` came from ("pinned in requirements.txt"), for version messages. */
  trinityVersionSource?: VersionSource;
  /** The verl the workspace installs or pins (the trainer backend of Trinity-RFT ≥ 0.6). */
  verl?: PackageInForce;
  /** Rule ids to skip (tests remove one rule to show that its findings come from it). */
  disabledRules?: ReadonlySet<string>;
  python?: PythonIndex;
  /** Other Trinity configs of the workspace, for cross-file agreement. */
  peers?: ConfigIndex;
  checkPaths?: boolean;
  cache?: ParseCache;
  maxBytes?: number;
}

export interface DocAnalysis {
  root: VNode | undefined;
  resolution: Resolution;
  sites: Site[];
  view?: ConfigView;
  facts?: JobFacts;
}

export interface Analysis {
  file?: string;
  text: string;
  kind: ConfigKind | null;
  detection: Detection;
  parse: ParseResult;
  docs: DocAnalysis[];
  findings: Finding[];
  lines: LineIndex;
  /** First document with interpolations resolved (undefined when not a config or unparsable). */
  resolved?: unknown;
  trinityVersion: string;
  /** The version in force, with its source (`requirements.txt`, `modeline`…), for messages. */
  trinity: TrinityVersionInForce;
}

const LIMIT_MSG = {
  'input.too-large': (detail: string) => l10n.t('File too large to analyse: {0}.', detail),
  'input.binary': (detail: string) => l10n.t('Binary content: not a YAML text file: {0}.', detail),
  'input.too-deep': (detail: string) => l10n.t('Nested too deeply to analyse safely: {0}.', detail),
  'input.alias-expansion': (detail: string) => l10n.t('Aliases expand beyond the safe limit (an alias bomb?): {0}.', detail),
};

export function analyze(text: string, file: string | undefined, opts: EngineOptions = {}): Analysis {
  const sink = new FindingSink();
  const roots = opts.roots ?? [];
  const parse = parseYaml(text, opts.cache, { maxBytes: opts.maxBytes });
  const firstRoot = parse.docs.find((d) => d.root)?.root;
  let detection = detectKind({ text, root: parse.limit ? undefined : firstRoot, file, globs: opts.globs, roots, forced: opts.forcedKind });
  if (!detection.kind && !parse.limit && text.includes('{{')) {
    // an unrendered template: is it one of ours once the placeholders are filled?
    const found = findPlaceholders(text);
    if (found.length) {
      const rendered = renderPlaceholders(text, found);
      const root = parseYaml(rendered, undefined, { maxBytes: opts.maxBytes }).docs.find((d) => d.root)?.root;
      detection = detectKind({ text: rendered, root, file, globs: opts.globs, roots, forced: opts.forcedKind });
    }
  }
  if (!detection.kind && opts.stickyKind && parse.problems.some((p) => p.severity === 'error') && detection.by !== 'modeline') {
    detection = { kind: opts.stickyKind, by: 'content' };
  }
  let guess: KindGuess | undefined;
  if (!detection.kind && opts.guessKind && detection.by !== 'modeline') {
    guess = likeliestKind(text, parse.limit ? undefined : firstRoot);
    detection = { kind: guess.kind, by: 'guess' };
  }
  const kind = detection.kind;
  const trinity = versionInForce(detection, opts);
  const trinityVersion = trinity.release;
  // the CLI names its own source (--trinity-version); the server's comes with the version
  const trinityVersionSource = detection.modeline?.version || !opts.trinityVersionSource ? sourcePhrase(trinity) : opts.trinityVersionSource;
  const lines = new LineIndex(text);
  const result: Analysis = { file, text, kind, detection, parse, docs: [], findings: [], lines, trinityVersion, trinity };
  if (guess) guessedKindFinding(text, guess, !firstRoot || !!parse.limit, sink);

  if (parse.limit) {
    const forced = detection.by !== 'content' && detection.by !== 'none';
    sink.add({
      severity: forced || kind ? 'error' : 'warning',
      code: parse.limit.code,
      message: LIMIT_MSG[parse.limit.code](parse.limit.detail),
      path: '',
      span: { start: parse.limit.offset, end: Math.min(text.length, parse.limit.offset + 1) },
    });
    result.findings = sink.items;
    return result;
  }
  if (!kind) return result;
  if (placeholderFinding(text, parse, sink)) {
    result.findings = sink.items;
    return result;
  }

  for (const p of parse.problems) sink.add({ severity: p.severity, code: p.code, message: verbatim(p.message), path: '', span: p.span });
  const contentDocs = parse.docs.filter((d) => d.root !== undefined);
  if (contentDocs.length > 1) {
    const second = contentDocs[1];
    const at = second.marker ?? { start: second.span.start, end: second.span.start + 1 };
    sink.add({
      severity: 'error',
      code: 'yaml.multiple-documents',
      message: l10n.t(
        'This file has {0} YAML documents; {1} reads exactly one.',
        contentDocs.length,
        kind === 'trinity' ? l10n.t('Trinity-RFT (OmegaConf.load)') : l10n.t('the launcher'),
      ),
      path: '',
      span: at,
    });
  }

  for (const doc of contentDocs.length ? contentDocs : parse.docs.slice(0, 1)) {
    const root = doc.root;
    const d = root ? deref(root, 0).node : undefined;
    if (root && d && d.kind !== 'map') {
      sink.add({ severity: 'error', code: 'schema.type', message: l10n.t('A config must be a mapping of keys at the top level.'), path: '', span: root.span });
      result.docs.push({ root, resolution: { sites: [], values: new Map(), unknown: new Set(), resolved: undefined }, sites: [] });
      continue;
    }
    validateSchema({ kind, root, trinityVersion, sink });
    const extra = opts.env ?? {};
    const env = (name: string) => (Object.prototype.hasOwnProperty.call(extra, name) ? extra[name] : process.env[name]);
    const resolution = resolveInterpolations({ kind, root, text, env, sink });
    const sites = collectSites(kind, root);
    const ruleEnv: RuleEnv = {
      kind,
      file,
      text,
      root,
      roots,
      python: opts.python,
      trinityVersion,
      trinityVersionSource,
      sink,
      checkPaths: opts.checkPaths !== false,
      verl: opts.verl,
    };
    runKeyRules({
      kind,
      sites,
      resolution,
      sink,
      python: opts.python,
      roots,
      file,
      trinityVersion,
      trinityVersionSource,
      checkPaths: opts.checkPaths !== false,
    });
    const da: DocAnalysis = { root, resolution, sites };
    if (kind === 'trinity') {
      for (const view of trinityViews(kind, root, resolution)) {
        const ctx: RuleContext = { ...ruleEnv, view };
        for (const rule of TRINITY_RULES) if (!opts.disabledRules?.has(rule.id)) runRule(rule, ctx, sink);
      }
      da.view = new ConfigView(kind, root, resolution);
      if (file) {
        da.facts = extractFacts(file, da.view, lines);
        if (da.facts && opts.peers) {
          opts.peers.set(file, da.facts);
          for (const f of crossFileFindings(da.facts, da.view, opts.peers.peersOf(da.facts))) sink.add(f);
        }
      }
    } else {
      const view = new ConfigView(kind, root, resolution, [], undefined, 'agent');
      da.view = view;
      try {
        runAgentRules({ ...ruleEnv, view });
      } catch (err) {
        internalError(sink, 'agent', err);
      }
    }
    result.docs.push(da);
  }
  result.resolved = result.docs[0]?.resolution.resolved;
  result.findings = sink.items.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  keepQuotes(text, result.findings);
  return result;
}

/** A `# agentrl: trinity@0.5` modeline, else what the workspace resolved, else the option / newest. */
function versionInForce(detection: Detection, opts: EngineOptions): TrinityVersionInForce {
  const fromModeline = modelineVersion(detection.modeline);
  if (fromModeline) return resolveTrinityVersion({ modeline: fromModeline, known: TRINITY_VERSIONS });
  if (opts.trinity) return opts.trinity;
  const v = opts.trinityVersion ?? LATEST_TRINITY;
  return { version: v, release: v, source: opts.trinityVersion ? 'setting' : 'default', from: opts.trinityVersion ? 'option' : 'newest known' };
}

/** The phrase version messages give for a source: "pinned in requirements.txt". */
function sourcePhrase(t: TrinityVersionInForce): VersionSource {
  switch (t.source) {
    case 'pin':
      return l10n.t('pinned in {0}', t.from);
    case 'installed':
      return l10n.t('installed in {0}', t.from);
    case 'modeline':
      return verbatim(`# agentrl: trinity@${t.version}`);
    case 'setting':
      return t.from === 'option' ? undefined : 'agentrl.config.trinityVersion';
    default:
      return undefined;
  }
}

/** Says that a named file was checked as the likeliest kind because its content decided none. */
function guessedKindFinding(text: string, g: KindGuess, unreadable: boolean, sink: FindingSink): void {
  const nl = text.indexOf('\n');
  const reason = unreadable
    ? l10n.t('its YAML could not be read as a mapping')
    : l10n.t('{0} of its {1} top-level keys are Trinity-RFT sections', g.sections, g.keys);
  sink.add({
    severity: 'warning',
    code: 'input.kind-guessed',
    message: l10n.t(
      'Not recognised as a config by its content ({0}); checked as a {1} config because it was named on the command line. Add `# agentrl: {2}` to its first lines to say so, or `# agentrl: none` to skip it.',
      reason,
      KIND_LABEL[g.kind],
      g.kind,
    ),
    path: '',
    span: { start: 0, end: nl < 0 ? text.length : nl },
  });
}

/** One finding for a file with unrendered `{{PLACEHOLDER}}`s (instead of one parse error per
 *  line); true when it was reported and the analysis stops there. */
function placeholderFinding(text: string, parse: ParseResult, sink: FindingSink): boolean {
  const found = findPlaceholders(text);
  if (!found.length) return false;
  const names = [...new Set(found.map((p) => p.name))];
  const list =
    names
      .slice(0, 5)
      .map((n) => `\`{{${n}}}\``)
      .join(', ') + (names.length > 5 ? ` (+${names.length - 5})` : '');
  const broken = parse.problems.some((p) => p.severity === 'error');
  sink.add({
    severity: broken ? 'error' : 'warning',
    code: 'input.template-placeholder',
    message:
      found.length > 1
        ? l10n.t(
            'Template placeholder: render this file first. It has {0} unfilled `{{…}}` values ({1}); checks run on the rendered config.',
            found.length,
            list,
          )
        : l10n.t(
            'Template placeholder: render this file first. It has {0} unfilled `{{…}}` value ({1}); checks run on the rendered config.',
            found.length,
            list,
          ),
    path: '',
    span: { start: found[0].start, end: found[0].end },
    related: found.slice(1, 50).map((p) => ({ message: verbatim(`\`{{${p.name}}}\``), span: { start: p.start, end: p.end } })),
  });
  return true;
}

/** A fix that replaces a quoted scalar keeps its quotes (`'x'` → `'y'`, not `y`). */
function keepQuotes(text: string, findings: Finding[]): void {
  for (const f of findings) {
    for (const fix of f.fixes ?? []) {
      for (const e of fix.edits) {
        const old = text.slice(e.span.start, e.span.end);
        const q = old[0];
        if ((q === '"' || q === "'") && old.length >= 2 && old.endsWith(q) && !/^["']/.test(e.newText) && !e.newText.includes('\n')) {
          e.newText = `${q}${e.newText}${q}`;
        }
      }
    }
  }
}

/** A rule bug must never take the analysis (or the server) down: report it instead. */
function runRule(rule: Rule, ctx: RuleContext, sink: FindingSink): void {
  try {
    rule.run(ctx);
  } catch (err) {
    internalError(sink, rule.id, err);
  }
}

function internalError(sink: FindingSink, id: string, err: unknown): void {
  sink.add({
    severity: 'info',
    code: 'internal.rule-failed',
    message: l10n.t('Rule {0} failed: {1}. Please report this.', id, (err as Error)?.message ?? String(err)),
    path: '',
    span: { start: 0, end: 0 },
  });
}
