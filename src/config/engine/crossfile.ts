// The explorer and trainer configs of one decoupled job (same project/group/name, one in
// `explore`/`serve` mode and one in `train`, as in Trinity's async_gsm8k example) share the
// job directory, the Ray namespace and the experience buffer. What they must agree on is
// compared here; a disagreement is reported in each file, linking the other.
import * as path from 'path';
import type { Range } from '../../shared/config-api';
import { msg, type Finding } from '../core/findings';
import type { ConfigView } from '../rules/view';
import { enumValue } from '../schema/coerce';
import type { LineIndex } from '../core/text';

export interface Fact {
  value: string;
  /** Where it is written in its file (the nearest written key when defaulted). */
  range: Range;
  /** The config path. */
  path: string;
}

export interface JobFacts {
  file: string;
  job: string;
  mode: string;
  facts: Map<string, Fact>;
}

const LABELS: Record<string, { en: string; zh: string }> = {
  'model.model_path': { en: 'model path', zh: '模型路径' },
  'model.max_model_len': { en: 'max_model_len', zh: 'max_model_len' },
  'model.max_prompt_tokens': { en: 'max_prompt_tokens', zh: 'max_prompt_tokens' },
  'model.max_response_tokens': { en: 'max_response_tokens', zh: 'max_response_tokens' },
  checkpoint_root_dir: { en: 'checkpoint root', zh: '检查点根目录' },
  'buffer.trainer_input.experience_buffer.name': { en: 'experience buffer name', zh: '经验缓冲区名称' },
  'buffer.trainer_input.experience_buffer.storage_type': { en: 'experience buffer storage', zh: '经验缓冲区存储' },
  'algorithm.algorithm_type': { en: 'algorithm', zh: '算法' },
  'synchronizer.sync_method': { en: 'sync method', zh: '同步方式' },
};

const SYNC = { values: ['nccl', 'checkpoint', 'memory'], aliases: { online: 'nccl', offline: 'checkpoint' }, caseInsensitive: true };

/** Facts of a Trinity config that takes part in a decoupled job, or undefined. */
export function extractFacts(file: string, view: ConfigView, lines: LineIndex): JobFacts | undefined {
  const mode = view.str('mode');
  if (!mode || !['explore', 'serve', 'train'].includes(mode)) return undefined;
  if (!view.has('name') && !view.has('project')) return undefined;
  const project = view.str('project');
  const name = view.str('name');
  if (project === undefined || name === undefined) return undefined;
  const job = `${project}/${view.str('group') ?? ''}/${name}`;
  const facts = new Map<string, Fact>();
  const put = (p: string, value: string | undefined) => {
    if (value === undefined) return;
    facts.set(p, { value, range: lines.range(view.keySpan(p)), path: p });
  };
  put('model.model_path', view.str('model.model_path'));
  // lengths as Trinity derives them
  const mml = view.num('model.max_model_len');
  const mpt = view.num('model.max_prompt_tokens');
  const mrt = view.num('model.max_response_tokens');
  const len = mml ?? (mpt !== undefined && mrt !== undefined ? mpt + mrt : undefined);
  if (len !== undefined) {
    put('model.max_model_len', String(len));
    const prompt = mpt ?? (mrt !== undefined ? len - Math.min(mrt, len - 1) : Math.floor(len / 2));
    const resp = mrt !== undefined ? Math.min(mrt, len - 1) : len - prompt;
    put('model.max_prompt_tokens', String(mpt !== undefined ? Math.min(mpt, len - 1) : prompt));
    put('model.max_response_tokens', String(resp));
  }
  put('checkpoint_root_dir', view.str('checkpoint_root_dir'));
  put('buffer.trainer_input.experience_buffer.name', view.str('buffer.trainer_input.experience_buffer.name') || 'experience_buffer');
  put('buffer.trainer_input.experience_buffer.storage_type', view.str('buffer.trainer_input.experience_buffer.storage_type') ?? 'queue');
  put('algorithm.algorithm_type', view.str('algorithm.algorithm_type'));
  const raw = view.str('synchronizer.sync_method');
  const method = raw ? enumValue(raw, SYNC) : undefined;
  // train/explore/serve replace nccl by checkpoint: compare what actually runs
  put('synchronizer.sync_method', method === 'nccl' ? 'checkpoint' : method);
  return { file, job, mode, facts };
}

/** Keeps the facts of every Trinity config seen (open documents and the workspace scan). */
export class ConfigIndex {
  private byFile = new Map<string, JobFacts>();
  set(file: string, facts: JobFacts | undefined): void {
    if (facts) this.byFile.set(file, facts);
    else this.byFile.delete(file);
  }
  delete(file: string): void {
    this.byFile.delete(file);
  }
  /** The other halves of the job. */
  peersOf(self: JobFacts): JobFacts[] {
    const out: JobFacts[] = [];
    for (const f of this.byFile.values()) {
      if (f.file === self.file || f.job !== self.job) continue;
      const pair = (self.mode === 'train') !== (f.mode === 'train');
      if (pair) out.push(f);
    }
    return out;
  }
  files(): string[] {
    return [...this.byFile.keys()];
  }
}

/** Disagreements between `self` and its peers, as findings in self's file. */
export function crossFileFindings(self: JobFacts, view: ConfigView, peers: JobFacts[]): Finding[] {
  const out: Finding[] = [];
  for (const peer of peers) {
    const role = peer.mode === 'train' ? msg('trainer', '训练器') : msg('explorer', '探索器');
    const base = path.basename(peer.file);
    for (const [p, mine] of self.facts) {
      const theirs = peer.facts.get(p);
      if (!theirs || theirs.value === mine.value) continue;
      const label = LABELS[p] ?? { en: p, zh: p };
      out.push({
        severity: 'warning',
        code: 'crossfile.mismatch',
        message: msg(
          `The ${label.en} differs from the ${role.en} config \`${base}\` of job '${self.job}': \`${mine.value}\` here, \`${theirs.value}\` there. Both halves of a decoupled job must agree.`,
          `${label.zh}与作业 '${self.job}' 的${role.zh}配置 \`${base}\` 不一致：此处为 \`${mine.value}\`，那里为 \`${theirs.value}\`。解耦作业的两部分必须一致。`,
        ),
        path: view.where(p),
        span: view.keySpan(p),
        related: [{ message: msg(`${label.en} in ${base}: ${theirs.value}`, `${base} 中的${label.zh}：${theirs.value}`), file: peer.file, range: theirs.range }],
      });
    }
  }
  return out;
}
