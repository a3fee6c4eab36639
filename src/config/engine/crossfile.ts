// The explorer and trainer configs of one decoupled job (same project/group/name, one in
// `explore`/`serve` mode and one in `train`, as in Trinity's async_gsm8k example) share the
// job directory, the Ray namespace and the experience buffer. What they must agree on is
// compared here; a disagreement is reported in each file, linking the other.
import * as path from 'path';
import type { Range } from '../../feature-api/config-checker';
import { type Finding } from '../core/findings';
import { l10n, type Text, verbatim } from '../core/l10n-text';
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

const LABELS: Record<string, Text> = {
  'model.model_path': l10n.t('model path'),
  'model.max_model_len': verbatim('max_model_len'),
  'model.max_prompt_tokens': verbatim('max_prompt_tokens'),
  'model.max_response_tokens': verbatim('max_response_tokens'),
  checkpoint_root_dir: l10n.t('checkpoint root'),
  'buffer.trainer_input.experience_buffer.name': l10n.t('experience buffer name'),
  'buffer.trainer_input.experience_buffer.storage_type': l10n.t('experience buffer storage'),
  'algorithm.algorithm_type': l10n.t('algorithm'),
  'synchronizer.sync_method': l10n.t('sync method'),
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
    const role = peer.mode === 'train' ? l10n.t('trainer') : l10n.t('explorer');
    const base = path.basename(peer.file);
    for (const [p, mine] of self.facts) {
      const theirs = peer.facts.get(p);
      if (!theirs || theirs.value === mine.value) continue;
      const label = LABELS[p] ?? verbatim(p);
      out.push({
        severity: 'warning',
        code: 'crossfile.mismatch',
        message: l10n.t(
          "The {0} differs from the {1} config `{2}` of job '{3}': `{4}` here, `{5}` there. Both halves of a decoupled job must agree.",
          label,
          role,
          base,
          self.job,
          mine.value,
          theirs.value,
        ),
        path: view.where(p),
        span: view.keySpan(p),
        related: [{ message: l10n.t('{0} in {1}: {2}', label, base, theirs.value), file: peer.file, range: theirs.range }],
      });
    }
  }
  return out;
}
