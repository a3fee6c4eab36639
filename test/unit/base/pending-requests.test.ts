// Requests awaited by number (the relay client's experience and detail reads, the metrics
// view's probe of its webview): each settles exactly once — with its answer, with the outcome
// given for a late one, or with the outcome given when the peer goes away. Fake timers.
import * as assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { PendingRequests } from '../../../src/base/pending-requests';

test('a request settles once: its answer, the late outcome after its timeout, or the outcome for all when the peer goes away', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const p = new PendingRequests<string | undefined>();
    const sent: number[] = [];
    const answered = p.ask((n) => sent.push(n), 1000, undefined);
    const late = p.ask((n) => sent.push(n), 1000, new Error('no answer within 1 s'));
    const quiet = p.ask((n) => sent.push(n), 1000, undefined);
    assert.deepEqual(sent, [1, 2, 3], 'sent at once, numbered');
    p.settle(1, 'drawn');
    p.settle(1, 'again'); // a second answer to the same request is ignored
    p.settle(99, 'unknown'); // so is one to a request never made
    assert.equal(await answered, 'drawn');
    mock.timers.tick(1000);
    await assert.rejects(late, /no answer within 1 s/);
    assert.equal(await quiet, undefined, 'a late outcome that is a value resolves');
    const a = p.ask(() => undefined, 1000, undefined);
    const b = p.ask(() => undefined, 1000, undefined);
    p.settleAll('nothing on screen');
    assert.deepEqual(await Promise.all([a, b]), ['nothing on screen', 'nothing on screen']);
    const c = p.ask(() => undefined, 1000, undefined);
    p.settleAll(new Error('connection closed'));
    await assert.rejects(c, /connection closed/);
    mock.timers.tick(5000); // no timer left behind to settle anything twice
  } finally {
    mock.timers.reset();
  }
});

test('a send that throws settles its request at once with its error, leaving no timer behind', async () => {
  const p = new PendingRequests<string>();
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const asked = p.ask(
    () => {
      throw new Error('refused before sending');
    },
    60_000,
    new Error('late'),
  );
  await assert.rejects(asked, /refused before sending/);
  assert.equal(timers(), before, 'its 60 s timer is cleared (it would keep a CLI alive)');
  p.settle(1, 'an answer after all'); // ignored: the request is settled
});
