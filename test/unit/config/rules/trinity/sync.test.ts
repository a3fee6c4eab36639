// Every value upstream's validator divides by, read from the stored validators themselves: each
// is either checked (0 is an error at its line, as Trinity would die on it) or guarded upstream
// (the reason is written here). `synchronizer.explorer_sync_interval: 0` was once accepted while
// Trinity 0.6 stopped with ZeroDivisionError in IntervalConfigValidator.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { hasShared, sharedDir } from '../../../../harness/paths';
import { applyFix, en, expectClean, expectFinding, expectNo, lineOf, run, trinity, type Obj } from '../../helpers';

const VALIDATORS = [
  'trinity-rft-0.5.2/trinity/common/config_validator.py',
  'trinity-rft-0.6-files/pan-x-c@0ccf77cf/trinity/common/config_validator.py',
  'trinity-rft-0.6-files/agentscope-ai@1c35a79b/trinity/common/config_validator.py',
];

/** Names after `/`, `//` or `%` in code (docstrings, strings and comments left out). */
function divisors(source: string): Set<string> {
  const code = source.replace(/"""[\s\S]*?"""/g, '');
  const out = new Set<string>();
  for (const raw of code.split('\n')) {
    const line = raw.replace(/f?"[^"]*"|f?'[^']*'/g, '""').replace(/#.*$/, '');
    for (const m of line.matchAll(/(?:\/\/|%|\/)\s*([A-Za-z_][\w.]*)/g)) out.add(m[1]);
  }
  return out;
}

interface Checked {
  code: string;
  /** A config where the divisor is 0, and the line the error must be on. */
  config: Obj;
  line: string;
  version: string;
}
/** Each divisor: checked by a rule, or why upstream never divides by 0 there. */
const DIVISORS: Record<string, Checked | string> = {
  'config.synchronizer.sync_interval': {
    code: 'trinity.sync.interval',
    config: { synchronizer: { sync_interval: 0 } },
    line: 'sync_interval: 0',
    version: '0.5.2',
  },
  explorer_sync_interval: {
    code: 'trinity.sync.explorer-interval',
    config: { synchronizer: { explorer_sync_interval: 0 } },
    line: 'explorer_sync_interval: 0',
    version: '0.6.0',
  },
  'config.explorer.rollout_model.engine_num': {
    code: 'trinity.explorer.engine-num',
    config: { explorer: { concurrent_mode: 'asynchronous', rollout_model: { engine_num: 0 } } },
    line: 'engine_num: 0',
    version: '0.6.0',
  },
  'model_config.data_parallel_size': {
    code: 'trinity.engine.parallel-min',
    config: { explorer: { rollout_model: { data_parallel_size: 0 } } },
    line: 'data_parallel_size: 0',
    version: '0.6.0',
  },
  parallel_size: {
    code: 'trinity.trainer.context-parallel',
    config: { trainer: { trainer_strategy: 'megatron', megatron: { context_parallel_size: 0 } } },
    line: 'context_parallel_size: 0',
    version: '0.6.0',
  },
  'config.trainer.ulysses_sequence_parallel_size': 'set to 1 just before when < 1 (reported as trinity.trainer.sp-min)',
  'cluster.gpu_per_node': '0 is replaced by the GPUs Ray reports before any division',
  'config.cluster.gpu_per_node': '0 is replaced by the GPUs Ray reports before any division',
  fsdp_size: "GPU memory estimate: veRL's own config fills fsdp_size (-1: the world size) before it is read",
};

test('every divisor in the stored validators is checked at its line, or guarded upstream', { skip: !hasShared && 'needs ../shared/upstream' }, () => {
  const found = new Set<string>();
  for (const f of VALIDATORS) for (const d of divisors(fs.readFileSync(path.join(sharedDir, 'upstream', f), 'utf8'))) found.add(d);
  assert.deepEqual(
    [...found].filter((d) => !(d in DIVISORS)),
    [],
    'a divisor with no rule and no reason',
  );
  for (const [name, what] of Object.entries(DIVISORS)) {
    if (typeof what === 'string') continue;
    const text = trinity(what.config);
    const f = expectFinding(run(text, { trinityVersion: what.version }), what.code, { severity: 'error', line: lineOf(text, what.line) });
    assert.match(en(f.message), /must be (>= 1|positive)/, name);
    expectNo(run(applyFix(text, f), { trinityVersion: what.version }), what.code);
  }
});

test('explorer_sync_interval < 1 is an error where upstream divides by it; not in bench mode, not for SFT/DPO, not before 0.6', () => {
  for (const bad of [0, -2]) {
    const text = trinity({ synchronizer: { explorer_sync_interval: bad } });
    const f = expectFinding(run(text, { trinityVersion: '0.6.0' }), 'trinity.sync.explorer-interval', {
      severity: 'error',
      line: lineOf(text, `explorer_sync_interval: ${bad}`),
    });
    assert.match(en(f.message), new RegExp(`must be >= 1, but got ${bad}: Trinity divides \`explorer.eval_interval\` by it`));
    // one error, not a rounding note beside it
    expectNo(run(text, { trinityVersion: '0.6.0' }), 'trinity.sync.eval-interval-rounded');
    expectClean(run(applyFix(text, f), { trinityVersion: '0.6.0' }));
  }
  expectNo(run(trinity({ mode: 'bench', synchronizer: { explorer_sync_interval: 0 } }), { trinityVersion: '0.6.0' }), 'trinity.sync.explorer-interval');
  expectClean(run(trinity({ synchronizer: { explorer_sync_interval: 2 } }), { trinityVersion: '0.6.0' }));
});

test('engine_num 0 only matters where upstream divides by it (the concurrent modes)', () => {
  expectNo(
    run(trinity({ explorer: { concurrent_mode: 'sequential', rollout_model: { engine_num: 0 } } }), { trinityVersion: '0.6.0' }),
    'trinity.explorer.engine-num',
  );
  const text = trinity({ explorer: { concurrent_mode: 'multi-threading', rollout_model: { engine_num: 0 } } });
  const f = expectFinding(run(text, { trinityVersion: '0.6.0' }), 'trinity.explorer.engine-num', { severity: 'error', line: lineOf(text, 'engine_num: 0') });
  assert.match(en(f.message), /concurrent_mode 'multi-threading'/);
});
