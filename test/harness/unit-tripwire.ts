// Preloaded (`node --require`) into the unit tier's test processes by scripts/test.mjs: starting a
// process or opening a socket throws there, so a unit test that reaches one through src/ fails
// with the reason instead of quietly becoming a component test. test/unit/test-tiers.test.ts
// checks the imports statically; this catches what the imports do not show.
// Default imports: the module objects themselves (an `import * as` copy has getters only)
import childProcess from 'node:child_process';
import net from 'node:net';

// The test runner's own process starts one child per file: only those children are guarded.
if (process.env.NODE_TEST_CONTEXT) {
  const refuse = (what: string) => () => {
    throw new Error(`unit tests run no process and open no socket (${what}): move this test to test/component`);
  };
  const cp = childProcess as unknown as Record<string, unknown>;
  for (const fn of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) cp[fn] = refuse(`child_process.${fn}`);
  net.Server.prototype.listen = refuse('a server listening') as never;
  net.Socket.prototype.connect = refuse('a socket connecting');
}
