// Which timer wraps what, read from Trinity-RFT 0.5's own source, and what each `time/*` tag
// therefore measures. Trainer (Trinity's `trainer/trainer.py`, one loop iteration per train step,
// logged once at its end):
//   time/read_experience   sample_strategy.sample(): blocked until the explorer has written
//                          a batch of experiences (the trainer waiting for the explorer)
//   time/train_step        engine.train_step(): the verl step; verl's phases inside it are
//                          renamed from `timing_s/` (`verl_trainer.py`): time/step (all of it),
//                          time/old_log_prob, time/ref, time/values, time/adv,
//                          time/update_critic, time/update_actor
//   time/sync_weight       sync_weight(): pushing the weights (NCCL) or writing them for the
//                          explorer (checkpoint / memory); time/trainer_sync_interval is the
//                          time since the previous sync, not a cost
//   time/save_checkpoint   save_checkpoint()
// The loop runs these one after another, so their sum is the trainer's wall time of a step.
// Explorer (`explorer.py`, `scheduler.py`, `workflow_runner.py`), logged per explorer step:
//   time/wait_explore_step          scheduler.get_results(): until the step's tasks are done,
//                                   i.e. as long as its slowest task
//   rollout/time/run_execution/{mean,max,min}   one run of a workflow, over the step's runs
//   rollout/time/task_execution/*   one task (its repeat runs) on a runner
//   time/eval                       an eval taskset, from its start to its step's end
//   time/explorer_sync_interval     read_task + explore steps + eval between two syncs
//   time/experience_pipeline/*      the experience pipeline's operators and write, after the wait
// The time between two explorer steps' logs that none of these covers is the explorer waiting
// for the trainer's weights (Trinity's synchronizer holds it at sync_interval / sync_offset).
// verl on its own (AgentJet) logs `timing_s/*` in one process that generates then trains:
// `gen` is then the trainer's wait, `timing_s/agent_loop/generate_sequences/{mean,max}` its
// tasks, `update_weights` the sync, `testing` the eval. Tags may end in `:sum`/`:max`/`:min`/`:last`.

/** The normalized fields one step can hold (from either naming). */
export type Field =
  | 'read_experience'
  | 'train_step'
  | 'step'
  | 'gen'
  | 'sync_weight'
  | 'save_checkpoint'
  | 'testing'
  | 'wait_explore_step'
  | 'eval'
  | 'run_mean'
  | 'run_max'
  | 'run_min'
  | 'agent_mean'
  | 'agent_max'
  | 'throughput'
  | 'model_version'
  | 'pipeline_total';

/** verl's compute phases (Trinity's `time/<phase>` and verl's `timing_s/<phase>`). */
export const PHASES = ['old_log_prob', 'ref', 'values', 'adv', 'update_critic', 'update_actor', 'reward'] as const;
export type Phase = (typeof PHASES)[number];

const TRINITY: Record<string, Field> = {
  'time/read_experience': 'read_experience',
  'time/train_step': 'train_step',
  'time/step': 'step',
  'time/sync_weight': 'sync_weight',
  'time/save_checkpoint': 'save_checkpoint',
  'time/wait_explore_step': 'wait_explore_step',
  'time/eval': 'eval',
  'rollout/time/run_execution/mean': 'run_mean',
  'rollout/time/run_execution/max': 'run_max',
  'rollout/time/run_execution/min': 'run_min',
  'rollout/model_version': 'model_version',
  'time/experience_pipeline/total': 'pipeline_total',
  'perf/throughput': 'throughput',
};

const VERL: Record<string, Field> = {
  'timing_s/step': 'step',
  'timing_s/gen': 'gen',
  'timing_s/update_weights': 'sync_weight',
  'timing_s/save_checkpoint': 'save_checkpoint',
  'timing_s/testing': 'testing',
  'timing_s/agent_loop/generate_sequences/mean': 'agent_mean',
  'timing_s/agent_loop/generate_sequences/max': 'agent_max',
};

/** Read and understood but not a cost of their own (intervals, per-item stats, details). */
const INFORMATIONAL = [
  /^time\/(trainer_sync_interval|explorer_sync_interval)$/,
  /^rollout\/time\/(run_execution|task_execution)\//,
  /^time\/experience_pipeline\//,
  /^timing_s\/agent_loop\//,
  /^timing_per_token_ms\//,
  /^timing_s\/(reshard|start_profile|stop_profile)$/,
];

/** A tag without its reducer suffix, and the suffix's rank (lower wins when both are logged). */
export function splitSuffix(tag: string): { base: string; rank: number } {
  const m = /:(sum|last|max|min|mean)$/.exec(tag);
  if (!m) return { base: tag, rank: 0 };
  return { base: tag.slice(0, -m[0].length), rank: ['sum', 'last', 'mean', 'max', 'min'].indexOf(m[1]) + 1 };
}

export type Classified = { kind: 'field'; field: Field } | { kind: 'phase'; phase: Phase } | { kind: 'info' } | { kind: 'other' } | { kind: 'ignored' };

/** What a (suffix-free) tag means to the pipeline: a field, a compute phase, known detail, an unknown timing ("other"), or not a timing at all. */
export function classify(base: string): Classified {
  const f = TRINITY[base] ?? VERL[base];
  if (f) return { kind: 'field', field: f };
  const phase = /^(?:time|timing_s)\/([a-z_]+)$/.exec(base)?.[1];
  if (phase && (PHASES as readonly string[]).includes(phase)) return { kind: 'phase', phase: phase as Phase };
  if (INFORMATIONAL.some((re) => re.test(base))) return { kind: 'info' };
  if (/^(time|timing_s)\//.test(base)) return { kind: 'other' };
  return { kind: 'ignored' };
}

/** Where a missing tag comes from: the role that logs it and what turns it on. */
export interface MissingTag {
  tag: string;
  role: 'trainer' | 'explorer';
  /** The config setting or monitor that makes the run write it. */
  enable: string;
}

const MONITOR = 'monitor.monitor_type: tensorboard (any monitor also writes log/<role>.log "Step N:" lines)';

export function missingTag(tag: string, role: 'trainer' | 'explorer'): MissingTag {
  const enable =
    tag === 'time/eval'
      ? 'explorer.eval_interval with a buffer.explorer_input.eval_tasksets entry'
      : tag === 'time/save_checkpoint'
        ? 'trainer.save_interval > 0'
        : tag.startsWith('rollout/time/')
          ? `Trinity-RFT >= 0.5 explorer, ${MONITOR}`
          : MONITOR;
  return { tag, role, enable };
}
