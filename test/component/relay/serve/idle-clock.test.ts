// `agentrl relay --exit-when-idle S` as a process: with no client and no new data it ends by
// itself (code 0, one log line); a connected client or a trainer still writing keeps it up.
// This is what ends a Ray relay job whose run has finished once no editor is left to stop it.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { RELAY_SUBPROTOCOL } from '../../../../src/relay-protocol/messages';
import { appendSteps } from '../appender';
import { type RelayProc, startRelay, tmpDir } from '../helpers';
import { sleep, until } from '../../../harness/wait';
import { Relay, RELAY_DEFAULTS } from '../../../../src/relay/serve/relay';
import { silentLogger } from '../../../../src/base/log';

const IDLE_LINE = /relay: idle for \d+ s \(no client, no new data\): exiting/;

/** How long the relay says it was idle when it ended itself (its own idle clock, in its log). */
function idleSeconds(stderr: string): number {
  const m = /relay: idle for (\d+) s/.exec(stderr);
  assert.ok(m, `no idle line in the relay's log: ${stderr}`);
  return Number(m[1]);
}

/** A job dir with one small event file. */
function jobDir(): { dir: string; events: string } {
  const dir = path.join(tmpDir(), 'idle-run');
  const tb = path.join(dir, 'monitor', 'tensorboard', 'trainer');
  fs.mkdirSync(tb, { recursive: true });
  const events = path.join(tb, 'events.out.tfevents.1.node');
  appendSteps(events, 0, 5);
  return { dir, events };
}

/** The relay's exit code, or undefined if it is still up after `withinMs` (a wait, not a measure). */
function exitWithin(relay: RelayProc, withinMs: number): Promise<{ code: number | null } | undefined> {
  const { proc } = relay;
  if (proc.exitCode !== null) return Promise.resolve({ code: proc.exitCode });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      proc.off('exit', onExit);
      resolve(undefined);
    }, withinMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      resolve({ code });
    };
    proc.once('exit', onExit);
  });
}

test('relay idle exit: no client, no writes → exits 0 after ~2 s with its log line', { timeout: 30_000 }, async () => {
  const { dir } = jobDir();
  const relay = await startRelay(['--job-dir', dir, '--exit-when-idle', '2']);
  try {
    const exited = await exitWithin(relay, 8000);
    assert.ok(exited, `relay still running after 8 s: ${relay.stderr()}`);
    assert.equal(exited.code, 0, relay.stderr());
    assert.match(relay.stderr(), IDLE_LINE);
    // Not sooner than its limit by its own clock (the rule itself, with an injected clock:
    // test/unit/relay/serve/idle-clock.test.ts); this process's clock is not asserted.
    assert.ok(idleSeconds(relay.stderr()) >= 2, relay.stderr());
  } finally {
    await relay.stop('SIGKILL');
  }
});

test('relay idle exit: a connected client keeps it up; it exits once the client has gone', { timeout: 30_000 }, async () => {
  const { dir } = jobDir();
  const relay = await startRelay(['--job-dir', dir, '--exit-when-idle', '2']);
  try {
    const ws = new WebSocket(relay.url, RELAY_SUBPROTOCOL);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    assert.equal(await exitWithin(relay, 6500), undefined, `relay exited with a client connected: ${relay.stderr()}`);
    assert.doesNotMatch(relay.stderr(), IDLE_LINE);
    ws.close();
    const exited = await exitWithin(relay, 8000);
    assert.ok(exited, `relay still running 8 s after the client left: ${relay.stderr()}`);
    assert.equal(exited.code, 0);
    assert.match(relay.stderr(), IDLE_LINE);
    assert.ok(idleSeconds(relay.stderr()) >= 2, `idle for its whole limit after the client left: ${relay.stderr()}`);
  } finally {
    await relay.stop('SIGKILL');
  }
});

test('relay idle exit: a trainer appending every second keeps it up', { timeout: 30_000 }, async () => {
  const { dir, events } = jobDir();
  const relay = await startRelay(['--job-dir', dir, '--exit-when-idle', '2']);
  let step = 5;
  const writer = setInterval(() => appendSteps(events, step, ++step), 1000);
  try {
    assert.equal(await exitWithin(relay, 6500), undefined, `relay exited while the trainer wrote: ${relay.stderr()}`);
    clearInterval(writer);
    const exited = await exitWithin(relay, 8000);
    assert.ok(exited, `relay still running 8 s after the last write: ${relay.stderr()}`);
    assert.equal(exited.code, 0);
  } finally {
    clearInterval(writer);
    await relay.stop('SIGKILL');
  }
});

test('relay idle exit: with no watch events (a network filesystem), a file that keeps growing still keeps it up', { timeout: 30_000 }, async () => {
  // Stand-in for NFS written from another node: fs.watch refuses, as it does where there is
  // no inotify, so only the data files' size and mtime can tell that the run goes on.
  const { dir, events } = jobDir();
  // The module object itself (an `import *` namespace is read-only): the catalog reads `watch` from it at each call.
  const nodeFs = fs as { watch: unknown };
  const watch = nodeFs.watch;
  nodeFs.watch = () => {
    throw new Error('no inotify here');
  };
  // How many writes there had been when the relay went idle (undefined: not idle yet).
  let writes = 0;
  let writesAtIdle: number | undefined;
  const relay = new Relay({
    ...RELAY_DEFAULTS,
    root: { mode: 'job', dir },
    port: 0,
    token: undefined,
    allowOrigins: [],
    log: silentLogger,
    pollMs: 100,
    exitWhenIdleMs: 1000,
    onIdle: () => (writesAtIdle = writes),
  });
  try {
    await relay.start();
    // 15 writes 200 ms apart: three times the idle limit of growth without one watch event
    for (let step = 5; step < 20; step++) {
      appendSteps(events, step, step + 1);
      writes++;
      await sleep(200);
    }
    assert.equal(writesAtIdle, undefined, 'idle while the file kept growing');
    await until('idle once the writes stop', () => writesAtIdle !== undefined, 8000);
  } finally {
    nodeFs.watch = watch;
    await relay.close();
  }
});
