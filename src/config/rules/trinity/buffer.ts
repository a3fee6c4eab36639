// BufferConfigValidator (explorer input, trainer input, data pipelines) and the storage
// types the buffer factory accepts at run time.
import { suggest } from '../../core/findings';
import { l10n, list, verbatim } from '../../core/l10n-text';
import { AGENT_PLUGIN_NAMES } from '../../names/registries';
import { report, setValueFix, type Rule, type RuleContext } from '../context';
import { algorithmOf, atLeast06, isSftOrDpo, items, modeOf, syncStyleOf } from './common';
import { classifyPath, resolveLocalPath } from '../../core/paths';

// `task_dir` is 0.6's (with an older release in force the key rules say so: version.newer-value)
const TASKSET_STORAGE = ['file', 'sql', 'queue', 'task_dir'];
const BUFFER_STORAGE = ['queue', 'sql', 'file'];

function storageCheck(ctx: RuleContext, path: string, allowed: string[], known?: unknown): void {
  const v = ctx.view;
  // the caller may pass the (resolved) value it already has: no path lookup when it is fine
  if (typeof known === 'string' && allowed.includes(known)) return;
  const s = v.str(path);
  if (s === undefined) return;
  const plugin = ctx.kind === 'trinity' ? [] : (AGENT_PLUGIN_NAMES[ctx.kind]?.storage ?? []);
  if (allowed.includes(s) || plugin.includes(s)) return;
  const best = suggest(s, allowed, 1)[0];
  const fix = best ? setValueFix(ctx, path, best, l10n.t("Change to '{0}'", best)) : undefined;
  report(ctx, {
    severity: 'error',
    code: 'trinity.buffer.storage-type',
    message: l10n.t("Storage type '{0}' is not supported ({1}); the buffer fails when it is created.", s, list(allowed)),
    path,
    span: v.span(path),
    fixes: fix ? [fix] : undefined,
  });
}

export const bufferRule: Rule = {
  id: 'trinity.buffer',
  upstream: [
    'BufferConfigValidator.validate',
    'BufferConfigValidator._fill_taskset_config',
    'BufferConfigValidator._check_explorer_input',
    'BufferConfigValidator._check_trainer_input',
    'BufferConfigValidator._check_data_processor',
  ],
  run(ctx) {
    const v = ctx.view;
    const mode = modeOf(v);
    if (!mode) return;
    const ts = v.get('buffer.explorer_input.taskset');
    const hasTaskset = ts !== null && ts !== undefined && v.has('buffer.explorer_input.taskset');
    const tasksets = v.len('buffer.explorer_input.tasksets');
    if (mode !== 'train' && mode !== 'serve') {
      if (hasTaskset && tasksets > 0) {
        report(ctx, {
          severity: 'error',
          code: 'trinity.buffer.taskset-and-tasksets',
          message: l10n.t('Do not support setting `taskset` and `tasksets` simultaneously: use one of them.'),
          path: 'buffer.explorer_input.tasksets',
          related: [{ path: 'buffer.explorer_input.taskset', message: l10n.t('`taskset` is also set') }],
        });
      } else if (!hasTaskset && tasksets === 0 && mode !== 'bench') {
        report(ctx, {
          severity: 'error',
          code: 'trinity.buffer.no-taskset',
          message: l10n.t("At least one taskset should be provided in `buffer.explorer_input` (mode '{0}').", mode),
          path: 'buffer.explorer_input.taskset',
          related: v.has('mode') ? [{ path: 'mode', message: l10n.t("mode is '{0}'", mode) }] : undefined,
        });
      }
      const train: [string, Record<string, unknown>][] = hasTaskset
        ? [['buffer.explorer_input.taskset', (ts ?? {}) as Record<string, unknown>]]
        : items(v, 'buffer.explorer_input.tasksets').map((t, i) => [`buffer.explorer_input.tasksets[${i}]`, t]);
      const evals: [string, Record<string, unknown>][] = items(v, 'buffer.explorer_input.eval_tasksets').map((t, i) => [
        `buffer.explorer_input.eval_tasksets[${i}]`,
        t,
      ]);
      for (const [p, t] of train) pathRequired(ctx, p, false, t);
      for (const [p, t] of evals) pathRequired(ctx, p, true, t);
      for (const [p, t] of [...train, ...evals]) storageCheck(ctx, `${p}.storage_type`, TASKSET_STORAGE, t.storage_type ?? 'file');
      if (evals.length && atLeast06(ctx) && syncStyleOf(v) === 'fully_async') {
        // in pan-x-c@0ccf77cf's _check_explorer_input only: agentscope-ai@1c35a79b runs the config
        report(ctx, {
          severity: 'warning',
          code: 'trinity.buffer.fully-async-eval',
          message: l10n.t(
            'Eval tasksets are not supported in fully asynchronous synchronization style: the validator of {0} rejects this config ({1} runs it).',
            'pan-x-c@0ccf77cf',
            'agentscope-ai@1c35a79b',
          ),
          path: 'buffer.explorer_input.eval_tasksets',
          related: [{ path: 'synchronizer.sync_style', message: l10n.t("sync_style is '{0}'", 'fully_async') }],
        });
      }
    }
    if (mode !== 'bench') {
      if (v.has('buffer.trainer_input.experience_buffer')) storageCheck(ctx, 'buffer.trainer_input.experience_buffer.storage_type', BUFFER_STORAGE);
      if (
        (mode === 'both' || mode === 'colocate') &&
        v.has('buffer.trainer_input.experience_buffer') &&
        v.str('buffer.trainer_input.experience_buffer.storage_type') === 'file'
      ) {
        const fix = setValueFix(ctx, 'buffer.trainer_input.experience_buffer.storage_type', 'queue', l10n.t("Change to '{0}'", 'queue'));
        report(ctx, {
          severity: 'info',
          code: 'trinity.buffer.file-experience-buffer',
          message: l10n.t('`FILE` storage is not supported to use as experience_buffer in `{0}` mode; Trinity uses `QUEUE` instead.', mode),
          path: 'buffer.trainer_input.experience_buffer.storage_type',
          related: v.has('mode') ? [{ path: 'mode', message: l10n.t("mode is '{0}'", mode) }] : undefined,
          fixes: fix ? [fix] : undefined,
        });
      }
      const aux = v.get('buffer.trainer_input.auxiliary_buffers');
      if (aux && typeof aux === 'object' && !Array.isArray(aux)) {
        for (const [name, cfg] of Object.entries(aux as Record<string, unknown>)) {
          const p = `buffer.trainer_input.auxiliary_buffers.${name}`;
          const path = cfg && typeof cfg === 'object' ? (cfg as Record<string, unknown>).path : undefined;
          if (!v.unknown(`${p}.path`) && (path === undefined || path === null || path === '')) {
            report(ctx, {
              severity: 'error',
              code: 'trinity.buffer.aux-buffer-path',
              message: l10n.t('`buffer.trainer_input.auxiliary_buffers[{0}].path` is required, please set it to the path of the auxiliary buffer.', name),
              path: p,
            });
          }
          storageCheck(ctx, `${p}.storage_type`, BUFFER_STORAGE);
        }
      }
    }
    // the task pipeline writes a new dataset: it refuses one that is already there
    const out = v.str('data_processor.task_pipeline.output.path');
    if (
      out &&
      ctx.checkPaths &&
      v.has('data_processor.task_pipeline') &&
      ['explore', 'train', 'both', 'colocate'].includes(mode) &&
      classifyPath(out) === 'local' &&
      resolveLocalPath(out, ctx.roots, ctx.file).found
    ) {
      report(ctx, {
        severity: 'error',
        code: 'trinity.data.task-pipeline-output-exists',
        message: l10n.t('Task pipeline output path {0} already exists. Please choose a different output path to avoid overwriting.', out),
        path: 'data_processor.task_pipeline.output.path',
      });
    }
    // the task pipeline needs somewhere to write
    if (v.has('data_processor.task_pipeline') && ['explore', 'train', 'both', 'colocate'].includes(mode) && !v.has('data_processor.task_pipeline.output')) {
      const algo = algorithmOf(v);
      const noTaskset = !hasTaskset && tasksets === 0;
      if ((mode !== 'train' && noTaskset) || (mode === 'train' && !isSftOrDpo(algo))) {
        report(ctx, {
          severity: 'error',
          code: 'trinity.data.task-pipeline-output',
          message: l10n.t('`data_processor.task_pipeline.output` is missing and cannot default to a taskset: set it.'),
          path: 'data_processor.task_pipeline',
        });
      }
    }
  },
};

function pathRequired(ctx: RuleContext, p: string, isEval: boolean, item: Record<string, unknown>): void {
  const v = ctx.view;
  if (typeof item.path === 'string' && item.path !== '' && !item.path.includes('${')) return;
  if (v.unknown(`${p}.path`)) return;
  const path = v.get(`${p}.path`);
  if (path !== null && path !== undefined && path !== '') return;
  const name = v.str(`${p}.name`);
  report(ctx, {
    severity: 'error',
    code: isEval ? 'trinity.buffer.eval-taskset-path' : 'trinity.buffer.taskset-path',
    message: isEval
      ? l10n.t("Eval taskset{0}'s path is not configured.", verbatim(name ? ` [${name}]` : ''))
      : l10n.t("Train taskset{0}'s path is not configured.", verbatim(name ? ` [${name}]` : '')),
    path: `${p}.path`,
    span: v.has(`${p}.path`) ? v.span(`${p}.path`) : v.keySpan(p),
  });
}
