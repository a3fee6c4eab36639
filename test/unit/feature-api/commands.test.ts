// The typed cross-feature commands: the id a caller runs is the id the registrant registered,
// the argument reaches the handler as given and the result comes back; a saved revive is
// only ever Ray's watchMetrics with a job (saved workspace state is not trusted blindly).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CommandRegistry, METRICS_CONNECT, METRICS_EXPLORERS, RAY_WATCH_METRICS, isRevive } from '../../../src/feature-api/commands';

/** vscode.commands in memory: register, then execute by id. */
function registry(): CommandRegistry & { ids(): string[] } {
  const handlers = new Map<string, (arg: never) => unknown>();
  return {
    registerCommand(id, f) {
      assert.ok(!handlers.has(id), `${id} registered twice`);
      handlers.set(id, f);
      return { dispose: () => handlers.delete(id) };
    },
    executeCommand<T>(id: string, ...rest: unknown[]): PromiseLike<T> {
      const f = handlers.get(id);
      if (!f) return Promise.reject(new Error(`command '${id}' not found`));
      return Promise.resolve(f(...(rest as [never])) as T);
    },
    ids: () => [...handlers.keys()],
  };
}

test('a feature command runs the handler the other feature registered, argument and result typed on both ends', async () => {
  const commands = registry();
  const seen: unknown[] = [];
  const sub = METRICS_CONNECT.register(commands, (args) => {
    seen.push(args);
    return args?.url ? `url:${args.url}` : undefined;
  });
  METRICS_EXPLORERS.register(commands, () => [{ url: 'http://10.0.0.7:8010', run: 'serve', endpoint: 'ray:serve' }]);
  assert.deepEqual(commands.ids(), ['agentrl.metrics.connect', 'agentrl.metrics.explorers']);
  assert.equal(await METRICS_CONNECT.run(commands, { url: 'ws://127.0.0.1:8765/', run: 'a' }), 'url:ws://127.0.0.1:8765/');
  assert.deepEqual(seen, [{ url: 'ws://127.0.0.1:8765/', run: 'a' }]);
  assert.deepEqual(await METRICS_EXPLORERS.run(commands), [{ url: 'http://10.0.0.7:8010', run: 'serve', endpoint: 'ray:serve' }]);
  sub.dispose();
  await assert.rejects(METRICS_CONNECT.run(commands, {}), /not found/);
});

test('a saved revive is Ray watchMetrics of one job, nothing else', () => {
  const good = { command: RAY_WATCH_METRICS.id, args: { cluster: 'http://127.0.0.1:8265', id: 'raysubmit_1', relay: 'cluster' } };
  assert.ok(isRevive(good));
  assert.ok(!isRevive({ ...good, command: 'workbench.action.terminal.sendSequence' }), 'any other command');
  assert.ok(!isRevive({ ...good, command: 'agentrl.metrics.clear' }), 'even one of ours');
  assert.ok(!isRevive({ ...good, args: { ...good.args, id: 7 } }));
  assert.ok(!isRevive({ ...good, args: { ...good.args, relay: 'local' } }));
  assert.ok(!isRevive(undefined) && !isRevive('agentrl.ray.watchMetrics') && !isRevive({ command: RAY_WATCH_METRICS.id }));
});
