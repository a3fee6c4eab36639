// A client that keeps asking for the tokens of one heavy row (the relay-hostile bench's
// `tokens` flooder, which took the Node relay to 271 MB): against rows Trinity-RFT's own SQL
// writer wrote, the relay lays the row's frame out once and answers every request with a copy
// of it. What is bounded is counted, not timed: frames built and the bytes they took.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { RelayClient } from '../../../../src/relay-protocol/client';
import type { SourceInfo } from '../../../../src/relay-protocol/messages';
import { inProcessRelay } from '../../../../src/relay/run-target';
import { type TrinityRow, writeTokenRows } from '../../../harness/trinity-token-rows';
import { tmpDir } from '../helpers';
import { noTrinity } from '../trinity-sql-writer';

test(
  '40 tokens requests for one row, 8 at a time: one frame laid out, 39 copies, the same answer each time',
  { skip: noTrinity, timeout: 240_000 },
  async () => {
    const { job, rows } = writeTokenRows(tmpDir('tokens-frames-'));
    const row = rows.find((r): r is TrinityRow => !r.crafted && r.tokens.length > 0)!;
    const relay = inProcessRelay(job);
    const url = await relay.start();
    const client = new RelayClient({ url, experiences: false });
    try {
      const hello = await new Promise<{ sources: SourceInfo[] }>((resolve) => {
        client.on('hello', resolve);
        client.start();
      });
      await new Promise<void>((resolve) => {
        const on = () => client.state === 'open' && resolve();
        client.on('state', on);
        on();
      });
      const source = hello.sources.find((s) => s.kind === 'sql')!.id;
      const replies = [];
      for (let round = 0; round < 5; round++) replies.push(...(await Promise.all(Array.from({ length: 8 }, () => client.requestTokens(source, row.id)))));
      assert.equal(replies.length, 40);
      for (const r of replies) assert.deepEqual(Array.from(r.arrays.tokens ?? []), row.tokens);
      const { built, reused, builtBytes } = relay.tokenFrames.stats;
      assert.deepEqual({ built, reused }, { built: 1, reused: 39 }, 'the row was laid out once');
      assert.ok(builtBytes < 4 * 1024 * 1024, `one small row's frame, not ${builtBytes} bytes`);
    } finally {
      await client.close();
      await relay.close();
    }
  },
);
