// Keys that moved between releases. Trinity-RFT's per-release key sets come from the
// schema (`x-since` on current keys, `x-removed-keys` for keys later removed — both derived
// from trinity/common/config.py at each release tag); the renames below were read off the
// commits that removed the old names. ASTuner → AgentJet renames are from astuner.md §2.2/§8.
import * as fs from 'fs';
import * as path from 'path';
import type { ConfigKind } from '../shared/config-api';
import { msg, type Msg } from './findings';
import { LATEST_TRINITY, TRINITY, TRINITY_VERSIONS } from './schema/schemas';

const compared = new Map<string, number>();

export function compareVersions(a: string, b: string): number {
  const key = `${a}|${b}`;
  let r = compared.get(key);
  if (r === undefined) {
    r = compareUncached(a, b);
    if (compared.size > 10_000) compared.clear();
    compared.set(key, r);
  }
  return r;
}

function compareUncached(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** The known release a version string maps to (greatest known ≤ v), or undefined. */
export function knownRelease(v: string): string | undefined {
  let best: string | undefined;
  for (const r of TRINITY_VERSIONS) if (compareVersions(r, v) <= 0) best = r;
  return best;
}

/** Release that follows `v` in our list (the one that removed a key last seen in `v`). */
export function nextRelease(v: string): string | undefined {
  return TRINITY_VERSIONS.find((r) => compareVersions(r, v) > 0);
}

export interface Rename {
  /** Dataclass (x-class) holding the key. */
  cls: string;
  from: string;
  /** New key in the same section; absent when the setting moved elsewhere. */
  to?: string;
  /** First release where `from` is gone (or never existed: docs). */
  since: string;
  note: Msg;
}

export const TRINITY_RENAMES: Rename[] = [
  { cls: 'InferenceModelConfig', from: 'enable_openai_client', to: 'enable_openai_api', since: '0.1.1', note: msg('the name used in early docs; the key has always been `enable_openai_api`', '早期文档中的名字；该键一直是 `enable_openai_api`') },
  { cls: 'TrainerConfig', from: 'actor_grad_clip', to: 'grad_clip', since: '0.3.2', note: msg('renamed to `grad_clip`', '已更名为 `grad_clip`') },
  { cls: 'ExplorerConfig', from: 'api_port', to: 'proxy_port', since: '0.4.0', note: msg('renamed to `proxy_port`', '已更名为 `proxy_port`') },
  { cls: 'ExplorerConfig', from: 'eval_on_latest_checkpoint', to: 'bench_on_latest_checkpoint', since: '0.2.0', note: msg('renamed to `bench_on_latest_checkpoint`', '已更名为 `bench_on_latest_checkpoint`') },
  { cls: 'OptimizerConfig', from: 'lr_decay_style', to: 'lr_scheduler_type', since: '0.5.0', note: msg('replaced by `lr_scheduler_type`', '已由 `lr_scheduler_type` 取代') },
  { cls: 'BufferConfig', from: 'read_batch_size', to: 'train_batch_size', since: '0.3.0', note: msg('replaced by `train_batch_size`', '已由 `train_batch_size` 取代') },
  { cls: 'AlgorithmConfig', from: 'use_token_level_loss', since: '0.4.0', note: msg('replaced by `loss_agg_mode` (`token-mean` for true)', '已由 `loss_agg_mode` 取代（true 对应 `token-mean`）') },
  { cls: 'ExplorerInput', from: 'system_prompt', since: '0.3.2', note: msg('moved to each taskset\'s `format.system_prompt`', '已移到各任务集的 `format.system_prompt`') },
  { cls: 'ExplorerInput', from: 'reply_prefix', since: '0.3.2', note: msg('moved to each taskset\'s `format.reply_prefix`', '已移到各任务集的 `format.reply_prefix`') },
  { cls: 'TrainerInput', from: 'sft_warmup_dataset', since: '0.3.2', note: msg('replaced by `stages` (an SFT stage before RFT)', '已由 `stages`（RFT 前的 SFT 阶段）取代') },
  { cls: 'TrainerInput', from: 'sft_warmup_steps', since: '0.3.2', note: msg('replaced by `stages` (an SFT stage before RFT)', '已由 `stages`（RFT 前的 SFT 阶段）取代') },
  ...['TasksetConfig', 'ExperienceBufferConfig'].flatMap((cls) => [
    { cls, from: 'use_priority_queue', since: '0.3.2', note: msg('moved to `replay_buffer.enable`', '已移到 `replay_buffer.enable`') },
    { cls, from: 'reuse_cooldown_time', since: '0.3.2', note: msg('moved to `replay_buffer.reuse_cooldown_time`', '已移到 `replay_buffer.reuse_cooldown_time`') },
    { cls, from: 'replay_buffer_kwargs', since: '0.3.2', note: msg('moved to `replay_buffer.priority_fn_args`', '已移到 `replay_buffer.priority_fn_args`') },
  ]),
];

export interface KeyHistory {
  since?: string;
  until?: string;
  rename?: Rename;
}

/** What we know about a key that the current schema does not have. */
export function keyHistory(cls: string | undefined, key: string): KeyHistory | undefined {
  if (!cls) return undefined;
  const rename = TRINITY_RENAMES.find((r) => r.cls === cls && r.from === key);
  const removed = TRINITY['x-removed-keys']?.[cls]?.[key];
  if (!rename && !removed) return undefined;
  return { since: removed?.since, until: removed?.until, rename };
}

/** True when `target` is a release in which the key existed. */
export function validIn(h: KeyHistory, target: string): boolean {
  return !!(h.since && h.until && compareVersions(target, h.since) >= 0 && compareVersions(target, h.until) <= 0);
}

export interface AstunerRename {
  /** Path below the root key (`rollout.agentscope_workflow`). */
  path: string;
  /** The name in the other release line. */
  other: string;
  /** Which kind uses `path` (the other kind uses `other`). */
  kind: ConfigKind;
}

/** ASTuner (`astuner:`) ↔ AgentJet (`ajet:`) key renames. */
export const AGENT_RENAMES: AstunerRename[] = [
  { path: 'rollout.agentscope_workflow', other: 'user_workflow', kind: 'astuner' },
  { path: 'rollout.agentscope_disable_toolcalls', other: 'force_disable_toolcalls', kind: 'astuner' },
];

/** Legacy ASTuner keys (before commit F) with their replacement. */
export const AGENT_LEGACY: { path: string; to?: string; note: Msg }[] = [
  { path: 'trainer_common.trinity_only__n_vllm_engine', to: 'rollout.n_vllm_engine', note: msg('replaced by `rollout.n_vllm_engine` on 2025-12-01', '已于 2025-12-01 由 `rollout.n_vllm_engine` 取代') },
  { path: 'rollout.use_agentscope_protocol', note: msg('removed on 2025-12-19: set `rollout.agentscope_workflow` / `user_workflow` instead', '已于 2025-12-19 移除：请改用 `rollout.agentscope_workflow` / `user_workflow`') },
  { path: 'rollout.agentscope_learn_protocol', note: msg('removed on 2025-12-19: set `rollout.agentscope_workflow` / `user_workflow` instead', '已于 2025-12-19 移除：请改用 `rollout.agentscope_workflow` / `user_workflow`') },
  { path: 'task_reader.dataset_file', to: 'task_reader.jsonl_dataset_file', note: msg('renamed `jsonl_dataset_file` on 2025-12-18', '已于 2025-12-18 更名为 `jsonl_dataset_file`') },
];

/** Reads the version of an installed `trinity` package under the given roots, if any. */
export function detectInstalledTrinity(roots: readonly string[]): { version: string; where: string } | undefined {
  const venvs = ['.venv', 'venv', 'env', '.env', '.cache/venv'];
  for (const root of roots) {
    // a source checkout of Trinity-RFT itself
    const own = readInitVersion(path.join(root, 'trinity', '__init__.py'));
    if (own) return { version: own, where: path.join(root, 'trinity') };
    for (const v of venvs) {
      const lib = path.join(root, v, 'lib');
      let pys: string[];
      try {
        pys = fs.readdirSync(lib).filter((d) => d.startsWith('python'));
      } catch {
        continue;
      }
      for (const py of pys) {
        const site = path.join(lib, py, 'site-packages');
        let entries: string[] = [];
        try {
          entries = fs.readdirSync(site);
        } catch {
          continue;
        }
        const dist = entries.find((e) => /^trinity_rft-[\w.]+\.dist-info$/.test(e));
        if (dist) return { version: dist.replace(/^trinity_rft-/, '').replace(/\.dist-info$/, ''), where: path.join(site, dist) };
        const init = readInitVersion(path.join(site, 'trinity', '__init__.py'));
        if (init) return { version: init, where: path.join(site, 'trinity') };
      }
    }
  }
  return undefined;
}

function readInitVersion(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').slice(0, 20_000);
    return /__version__\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  } catch {
    return undefined;
  }
}

/** The target release: an explicit setting, else an installed package, else the newest. */
export function targetTrinityVersion(setting: string | undefined, roots: readonly string[]): { version: string; source: 'setting' | 'installed' | 'default'; detail?: string } {
  if (setting && setting !== 'auto') return { version: knownRelease(setting) ?? setting, source: 'setting' };
  const found = detectInstalledTrinity(roots);
  if (found) return { version: knownRelease(found.version) ?? LATEST_TRINITY, source: 'installed', detail: `${found.version} (${found.where})` };
  return { version: LATEST_TRINITY, source: 'default' };
}

/** `0.6.0` → `0.6`, `0.5.2` stays: how a release line is named in messages. */
export function lineOf(version: string): string {
  return version.replace(/^(\d+\.\d+)\.0$/, '$1');
}

/** Where the version in force came from, as the engine was told (e.g. "pinned in requirements.txt"). */
export type VersionSource = string | Msg | undefined;

/** "`x` needs Trinity-RFT ≥ 0.6; this workspace has 0.5.2 (pinned in requirements.txt)". */
export function needsRelease(what: string, since: string, target: string, source: VersionSource): Msg {
  const src = typeof source === 'string' ? msg(source, source) : source;
  const from = src ? msg(` (${src.en})`, `（${src.zh}）`) : msg('', '');
  return msg(`${what} needs Trinity-RFT ≥ ${lineOf(since)}; this workspace has ${target}${from.en}.`, `${what} 需要 Trinity-RFT ≥ ${lineOf(since)}；此工作区为 ${target}${from.zh}。`);
}
