// npm run bench -- config-hostile
//
// The config engine on hostile inputs (test/unit/config/fuzz.ts hostileInputs: binary, 10 MB,
// deep nesting, an alias bomb, 20 000 keys on one line): the time of each analysis, against the
// `yaml` package parsing the same text where it survives it (the lower bound of any analysis;
// the inputs the engine refuses before parsing are those the parser would choke on). The unit
// test (test/unit/config/yaml/limits.test.ts) bounds their findings and memory, not their time.
import { parseDocument } from 'yaml';
import { analyze } from '../../src/config/engine/engine';
import { hostileInputs } from '../unit/config/fuzz';
import { trinity } from '../unit/config/helpers';

const RUNS = Number(process.env.AGENTRL_BENCH_RUNS ?? 3);
/** The inputs the parser itself handles (the others are refused before parsing, for its sake). */
const PARSER_SURVIVES = new Set(['empty', 'empty, forced trinity', 'long line of keys']);

function best(f: () => void): number {
  let min = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

analyze(trinity(), '/bench/warm.yaml', {}); // schemas compiled once, as in a running server
let worst = { name: '', ms: 0 };
let ours = 0;
let parser = 0;
for (const { name, text } of hostileInputs()) {
  const ms = best(() => analyze(text, '/bench/hostile.yaml', {}));
  const peer = PARSER_SURVIVES.has(name) ? best(() => parseDocument(text, { uniqueKeys: false })) : undefined;
  console.log(
    `${name.padEnd(24)} ${(text.length / 1024).toFixed(0).padStart(7)} KB  ours ${ms.toFixed(1).padStart(8)} ms${peer === undefined ? '' : `  yaml parse ${peer.toFixed(1).padStart(8)} ms`}`,
  );
  if (ms > worst.ms) worst = { name, ms };
  if (peer !== undefined) {
    ours += ms;
    parser += peer;
  }
}
console.log(
  `BENCH config-hostile worst_ms=${worst.ms.toFixed(1)} worst=${JSON.stringify(worst.name)} ours_ms=${ours.toFixed(1)} yaml_parse_ms=${parser.toFixed(1)} ratio=${(ours / parser).toFixed(2)}`,
);
