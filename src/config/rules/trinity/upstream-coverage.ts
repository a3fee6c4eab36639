// Which of Trinity-RFT's own checks each of ours transcribes: every method of the validator
// classes in trinity/common/config_validator.py (both stored 0.6 lines, pan-x-c@0ccf77cf and
// agentscope-ai@1c35a79b) and every AlgorithmType.check_config of trinity/algorithm/algorithm.py
// is either named by a rule (`Rule.upstream`), checked outside the rules (schema, registry
// names, key annotations), or listed here with the reason it is not. The list is generated into
// schemas/trinity-rft.validators.json (`npm run gen:schemas`); a component test reads upstream's
// files and fails on a method or a raise that has none of the three.
import type { Rule } from '../context';

/** Upstream checks made outside the Trinity rules, and where. */
const CHECKED_ELSEWHERE: Readonly<Record<string, string>> = {
  'DeprecatedConfigValidator.validate': 'x-deprecated on explorer.runner_num (trinity.deprecated-key)',
  'AlgorithmConfigValidator.validate':
    'the registry names of algorithm_type, sample_strategy, policy_loss_fn, advantage_fn, kl_loss_fn, kl_penalty_fn and entropy_loss_fn (names.unknown); warmup_style: x-deprecated (trinity.deprecated-key); check_config: the algorithm rules',
  'MonitorConfigValidator.validate': 'the registry name of monitor_type (names.unknown)',
  'BufferConfigValidator._check_explorer_input: Selector': 'the registry name of data_selector.selector_type (names.unknown)',
  'BufferConfigValidator._check_trainer_input: Selector': 'the registry name of data_selector.selector_type (names.unknown)',
};

/** Upstream checks no rule of ours transcribes, with the reason (`Class.method` or
 *  `Class.method: start of the message` for one check of a method). */
const NOT_TRANSCRIBED: Readonly<Record<string, string>> = {
  'ConfigValidator.__init__': 'sets up the logger',
  'ConfigValidator.validate': 'abstract',
  'RayClusterConfigValidator.validate': 'sets ray_namespace and calls the helpers (checked there)',
  'RayClusterConfigValidator._set_gpu_allocation_info: Not enough GPUs for trainer':
    "reworded on purpose (trinity.gpu.no-trainer-gpus): said once, at the key to change, with the explorer's share, each parallel factor and the ways out; upstream names only the two totals",
  'RayClusterConfigValidator._set_cluster_info': 'asks the running Ray cluster for node_num / gpu_per_node; the GPU rules use the values written in `cluster`',
  'ModelConfigValidator._check_tinker: {…} is not supported by tinker!': 'asks the Tinker service which models it serves',
  'ModelConfigValidator._check_model_len: When `model.enable_prompt_truncation` is True': 'unreachable: max_prompt_tokens is always set by then',
  'BufferConfigValidator.validate: Failed to create buffer dir': 'creates the directory at run time',
  'BufferConfigValidator._default_storage_path': 'computes a default path; checks nothing',
  'BufferConfigValidator._check_trainer_input: `buffer.trainer_input.experience_buffer` is required when `mode` is `train`.':
    'unreachable: the experience buffer is created just above when missing',
  GPUMemoryValidator: "needs the model's weights and a GPU (torch.cuda) to estimate memory; not a fact of the config",
  'AlgorithmType.default_config': 'abstract',
};

export interface CoverageEntry {
  /** `Class.method` (or `Class.method: message` for one check). */
  check: string;
  /** Ids of the rules that transcribe it. */
  rules?: string[];
  /** Checked outside the rules: where. */
  elsewhere?: string;
  /** Not transcribed: why. */
  reason?: string;
}

/** The coverage list: each upstream check our rules name, or checked elsewhere, or not, and why. */
export function coverageList(rules: readonly Rule[]): CoverageEntry[] {
  const byCheck = new Map<string, CoverageEntry>();
  const entry = (check: string) => {
    let e = byCheck.get(check);
    if (!e) byCheck.set(check, (e = { check }));
    return e;
  };
  for (const r of rules) for (const u of r.upstream ?? []) (entry(u).rules ??= []).push(r.id);
  for (const [check, where] of Object.entries(CHECKED_ELSEWHERE)) entry(check).elsewhere = where;
  for (const [check, why] of Object.entries(NOT_TRANSCRIBED)) entry(check).reason = why;
  return [...byCheck.values()].sort((a, b) => a.check.localeCompare(b.check));
}
