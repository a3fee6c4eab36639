// Job dirs of a Trinity-RFT run in "both" mode, for the pipeline analysis: a timeline built from
// what Trinity's own loops do (sync_style fixed, sync_interval 1, sync_offset 0, NCCL sync), then
// written the way Trinity writes it: tensorboardX-format event files under
// monitor/tensorboard/<role>/ (scalar simple_value events, one per tag and step) or, for a run
// whose monitor is not TensorBoard, the `Step N: {...}` lines of log/<role>.log.
//
// The loops (Trinity's explorer.py, trainer.py, scheduler.py):
//  - explorer step s: its tasks run side by side on the runners; `time/wait_explore_step` lasts
//    until the slowest is done; the experience pipeline runs; the step is logged. Eval tasks
//    scheduled at the step run beside them and `time/eval` runs from their scheduling to their
//    end. Then sync_weight() meets the trainer (NCCL) and the next step starts.
//  - trainer step s: `time/read_experience` waits until the explorer has written step s's batch,
//    `time/train_step` trains (verl's `time/step` and phases inside it), `time/sync_weight`
//    meets the explorer (so it includes waiting for it), `time/save_checkpoint` saves, then logs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EventType } from '../../src/tfrecord/event-proto';
import { frameRecord } from '../../src/tfrecord/scan';

/** What one step costs, in seconds. */
export interface StepPlan {
  /** Each run of the step (they run side by side). */
  runs: number[];
  train: number;
  sync: number;
  checkpoint?: number;
  /** Eval at this step: how long its tasks run (scheduled with the step's own). */
  eval?: number;
  pipeline?: number;
}

export interface Logged {
  role: 'explorer' | 'trainer';
  step: number;
  wallTime: number;
  scalars: Record<string, number>;
}

/** The points Trinity logs for these steps (steps from 1), in the order it logs them. */
export function simulate(plans: StepPlan[], t0 = 1.7e9): Logged[] {
  const out: Logged[] = [];
  let explorerStart = t0;
  let trainerFree = t0;
  let lastSync: number | undefined;
  plans.forEach((p, i) => {
    const s = i + 1;
    const wait = Math.max(...p.runs);
    const mean = p.runs.reduce((a, b) => a + b, 0) / p.runs.length;
    const pipeline = p.pipeline ?? 0.05;
    const logged = explorerStart + wait + pipeline;
    out.push({
      role: 'explorer',
      step: s,
      wallTime: logged,
      scalars: {
        'rollout/model_version': s - 1,
        'time/wait_explore_step': wait,
        'time/experience_pipeline/total': pipeline,
        'time/experience_pipeline/write': pipeline / 2,
        'rollout/time/run_execution/mean': mean,
        'rollout/time/run_execution/max': wait,
        'rollout/time/run_execution/min': Math.min(...p.runs),
        'rollout/time/task_execution/mean': mean,
        'rollout/finished_task_count': p.runs.length,
        'rollout/accuracy/mean': 0.5,
      },
    });
    let explorerReady = logged;
    if (p.eval !== undefined) {
      const end = Math.max(logged, explorerStart + p.eval);
      out.push({ role: 'explorer', step: s, wallTime: end, scalars: { 'time/eval': end - explorerStart, 'eval/gsm8k/accuracy/mean@4': 0.4 } });
      explorerReady = end;
    }
    // Data ready before the trainer asks: its read returns at once.
    const read = Math.max(0.01, logged - trainerFree);
    const trained = Math.max(logged, trainerFree) + p.train;
    const syncEnd = Math.max(trained, explorerReady) + p.sync;
    const ckpt = p.checkpoint ?? 0;
    const scalars: Record<string, number> = {
      'time/read_experience': read,
      'time/train_step': p.train,
      'time/step': p.train * 0.98,
      'time/old_log_prob': p.train * 0.2,
      'time/ref': p.train * 0.15,
      'time/adv': p.train * 0.01,
      'time/update_actor': p.train * 0.6,
      'time/sync_weight': syncEnd - trained,
      'perf/throughput': 1000,
      'actor/pg_loss': 0.01,
    };
    if (lastSync !== undefined) scalars['time/trainer_sync_interval'] = trained - lastSync;
    if (ckpt) scalars['time/save_checkpoint'] = ckpt;
    lastSync = syncEnd;
    out.push({ role: 'trainer', step: s, wallTime: syncEnd + ckpt, scalars });
    trainerFree = syncEnd + ckpt;
    explorerStart = syncEnd;
  });
  return out;
}

function eventRecord(wallTime: number, step: number, tag?: string, value?: number): Buffer {
  const msg =
    tag === undefined
      ? { wall_time: wallTime, step, file_version: 'brain.Event:2' }
      : { wall_time: wallTime, step, summary: { value: [{ tag, simple_value: value }] } };
  return frameRecord(Buffer.from(EventType.encode(EventType.fromObject(msg)).finish()));
}

/** Python's repr of a float as Trinity's log line shows it. */
const pyFloat = (v: number): string => (Number.isNaN(v) ? 'nan' : !Number.isFinite(v) ? (v > 0 ? 'inf' : '-inf') : Number.isInteger(v) ? `${v}.0` : String(v));

function stamp(wallTime: number): string {
  const d = new Date(wallTime * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * Writes the points into a job dir: event files per role ('tensorboard'), or log lines ('log');
 * `roles` limits the roles written (a role missing).
 */
export function writeJob(dir: string, logged: Logged[], opts: { monitor?: 'tensorboard' | 'log'; roles?: string[]; config?: string } = {}): string {
  const monitor = opts.monitor ?? 'tensorboard';
  for (const role of opts.roles ?? ['explorer', 'trainer']) {
    const mine = logged.filter((l) => l.role === role);
    if (monitor === 'tensorboard') {
      const d = path.join(dir, 'monitor', 'tensorboard', role);
      fs.mkdirSync(d, { recursive: true });
      const recs = [eventRecord(mine[0]?.wallTime ?? 1.7e9, 0)];
      for (const l of mine) for (const [tag, v] of Object.entries(l.scalars)) recs.push(eventRecord(l.wallTime, l.step, tag, v));
      fs.writeFileSync(path.join(d, `events.out.tfevents.1700000000.node-1.${role}`), Buffer.concat(recs));
    } else {
      fs.mkdirSync(path.join(dir, 'log'), { recursive: true });
      const src = role === 'explorer' ? 'explorer.py:410' : 'trainer.py:101';
      const lines = mine.map(
        (l) =>
          `INFO ${stamp(l.wallTime)} [${src}] Step ${l.step}: {${Object.entries(l.scalars)
            .map(([k, v]) => `'${k}': ${pyFloat(v)}`)
            .join(', ')}}\n`,
      );
      fs.writeFileSync(path.join(dir, 'log', `${role}.log`), `INFO ${stamp(1.7e9)} [launcher.py:1] Starting ${role}\n${lines.join('')}`);
    }
  }
  if (opts.config !== undefined) fs.writeFileSync(path.join(dir, 'config.json'), opts.config);
  return dir;
}

/** Plans of `n` steps with the same shape. */
export const repeat = (n: number, p: StepPlan): StepPlan[] => Array.from({ length: n }, () => ({ ...p, runs: [...p.runs] }));
