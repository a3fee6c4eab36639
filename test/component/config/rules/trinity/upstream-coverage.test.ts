// Every check Trinity-RFT 0.6 runs has a rule, or is checked elsewhere, or has a recorded reason:
// each method of the validator classes of both stored config_validator.py lines and each
// AlgorithmType.check_config (read with Python's `ast` from ../shared, nothing imported) must be
// in our coverage list (src/config/rules/trinity/upstream-coverage.ts), and every raise or assert
// of a method our rules claim must be transcribed — one of our message templates shares a run
// of its words — or have its own reason. Skipped without ../shared.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { TRINITY_RULES } from '../../../../../src/config/engine/engine';
import { coverageList, type CoverageEntry } from '../../../../../src/config/rules/trinity/upstream-coverage';
import { hasShared, repoRoot, sharedDir } from '../../../../harness/paths';
import { upstreamFacts, where } from '../../facts/upstream-facts';

const skip = !hasShared && 'needs ../shared/upstream';
const dir = path.join(sharedDir, 'upstream', 'trinity-rft-0.6-files');
const VALIDATORS = ['pan-x-c@0ccf77cf', 'agentscope-ai@1c35a79b'].map((l) => path.join(dir, l, 'trinity', 'common', 'config_validator.py'));
const ALGORITHMS = path.join(dir, 'agentscope-ai@402adb2b', 'trinity', 'algorithm', 'algorithm.py');

interface UpCheck {
  fn: string;
  file: string;
  line: number;
  kind: string;
  message: string;
}

/** The methods that check configs, with their raises / asserts, from every stored file. */
function upstreamChecks(): { fns: Map<string, { file: string; line: number }>; checks: UpCheck[] } {
  const fns = new Map<string, { file: string; line: number }>();
  const checks: UpCheck[] = [];
  for (const file of [...VALIDATORS, ALGORITHMS]) {
    for (const [fn, f] of Object.entries(upstreamFacts([file]).functions)) {
      const cls = fn.split('.')[0];
      const isValidator = cls.endsWith('Validator');
      const isCheck = fn.endsWith('.check_config') || fn === 'AlgorithmType.default_config';
      if (!isValidator && !isCheck) continue;
      const raises = f.checks.filter((c) => c.kind !== 'warning');
      if (!isValidator && !raises.length) continue; // AlgorithmType.check_config: `pass`
      if (!fns.has(fn)) fns.set(fn, { file: f.file, line: f.line });
      for (const c of raises) checks.push({ fn, file: f.file, line: c.line, kind: c.kind, message: c.message });
    }
  }
  return { fns, checks };
}

/** Words only: quotes, backticks and punctuation do not make a transcription differ. */
const norm = (s: string) =>
  s
    .replace(/\{\d+\}|\{…\}/g, '#')
    .replace(/[`'".,:;!()[\]\s]+/g, ' ')
    .trim()
    .toLowerCase();

const templates = Object.keys(JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>)
  .map(norm)
  .join('\n');

/** True when one of our templates has a run of at least 30 characters (all, if shorter) of the
 *  longest fixed part of upstream's message. */
function transcribed(message: string): boolean {
  const parts = norm(message)
    .split('#')
    .map((p) => p.trim());
  const longest = parts.reduce((a, b) => (b.length > a.length ? b : a), '');
  const n = Math.min(30, longest.length);
  if (n < 8) return true; // nothing fixed to compare (`Invalid {…}: {…}`)
  for (let i = 0; i + n <= longest.length; i++) if (templates.includes(longest.slice(i, i + n))) return true;
  return false;
}

function coverageOf(list: CoverageEntry[], fn: string): CoverageEntry | undefined {
  return list.find((e) => e.check === fn) ?? list.find((e) => e.check === fn.split('.')[0]);
}

test('every validator method and check_config of Trinity-RFT 0.6 has a rule, is checked elsewhere, or has a recorded reason', { skip }, () => {
  const list = coverageList(TRINITY_RULES);
  const { fns } = upstreamChecks();
  assert.ok(fns.size > 30, `found ${fns.size} methods`);
  const missing = [...fns]
    .filter(([fn]) => !coverageOf(list, fn))
    .map(([fn, f]) => `${where(f.file, f.line)}: ${fn} has no rule, no other check and no recorded reason`);
  assert.deepEqual(missing, []);
  // and nothing in the list names a method upstream does not have
  const known = new Set([...fns.keys()].flatMap((fn) => [fn, fn.split('.')[0]]));
  const stale = list.map((e) => e.check.split(':')[0]).filter((c) => !known.has(c));
  assert.deepEqual(stale, []);
});

test("every raise and assert of a method our rules claim is transcribed (upstream's words in one of our messages) or has its own reason", { skip }, () => {
  const list = coverageList(TRINITY_RULES);
  const { checks } = upstreamChecks();
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const c of checks) {
    const key = `${c.fn}: ${c.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const own = list.find((e) => e.check.includes(': ') && key.startsWith(e.check));
    if (own && (own.reason || own.elsewhere)) continue;
    const fn = coverageOf(list, c.fn);
    if (!fn?.rules) continue; // the whole method is elsewhere or not transcribed (first test)
    if (!transcribed(c.message))
      problems.push(`${where(c.file, c.line)}: ${c.fn} ${c.kind} "${c.message.replace(/\s+/g, ' ')}" is in no message of ours (rules ${fn.rules.join(', ')})`);
  }
  assert.deepEqual(problems, []);
});

test('mutant: a validator method upstream adds is reported with its file and line', { skip }, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-validators-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const copy = path.join(tmp, 'config_validator.py');
  const text = fs.readFileSync(VALIDATORS[0], 'utf8');
  const anchor = 'class IntervalConfigValidator(ConfigValidator):';
  fs.writeFileSync(
    copy,
    text.replace(
      anchor,
      `${anchor}\n    def _check_warmup(self, config):\n        if config.explorer.eval_interval < 0:\n            raise ValueError("eval_interval must not be negative")\n`,
    ),
  );
  const fns = upstreamFacts([copy]).functions;
  assert.ok(fns['IntervalConfigValidator._check_warmup'], 'the extractor sees it');
  assert.equal(coverageOf(coverageList(TRINITY_RULES), 'IntervalConfigValidator._check_warmup'), undefined, 'and our list has nothing for it');
  assert.equal(transcribed('eval_interval must not be negative'), false);
});
