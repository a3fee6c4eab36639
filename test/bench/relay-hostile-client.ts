// Child process of the hostile-client bench: a client that subscribes, takes its backlog, then
// floods requests as fast as the relay takes them; when the relay cuts it off it connects
// again, so the pressure lasts. MODE:
// - `stopped`: it stops reading and floods small `detail` requests (each asks for every point
//   of a tag);
// - `detail` / `tokens`: it reads every answer but keeps PIPELINE requests in flight, each a
//   `detail` for every point of the tag (~2 MB an answer) or a `tokens` for one heavy row.
// Prints `<requests sent> <times cut off> <answers read>` every 200 ms.
//   node relay-hostile-client.js URL MODE SOURCE (FID OFFSET TAG | ROW_ID)
import { binaryFrameType } from '../../src/relay-protocol/envelope-frame';
import { WireClient } from '../harness/relay-wire';
import { sleep } from '../harness/wait';

const [url, mode, source, ...rest] = process.argv.slice(2);
const PIPELINE = 8;
let requests = 0;
let cuts = 0;
let answers = 0;
setInterval(() => process.stdout.write(`${requests} ${cuts} ${answers}\n`), 200);

function request(): object {
  if (mode === 'tokens') return { type: 'tokens', request: requests++, source, id: Number(rest[0]) };
  const [fid, offset, tag] = rest;
  return { type: 'detail', request: requests++, source, tag, from: 0, to: 1e9, maxPoints: 100_000, cursor: { source, fid, offset: Number(offset) } };
}

async function once(): Promise<void> {
  const c = await WireClient.connect(url);
  c.subscribe({ experiences: false });
  await c.waitFor('its backlog', () => c.of('heartbeat').some((h) => h.caughtUp === true), 120_000);
  if (mode === 'stopped') {
    c.stopReading();
    while (!c.closed) {
      if (c.ws.bufferedAmount < 1024 * 1024) for (let i = 0; i < 50; i++) c.send(request());
      await sleep(10);
    }
  } else {
    // Answers are counted as they arrive (a tokens answer is a binary frame the client does not keep).
    let inFlight = 0;
    c.ws.on('message', (data, isBinary) => {
      const b = data as Buffer;
      const answered = isBinary ? binaryFrameType(b) === undefined : /"type":"(detail|tokens)"/.test(b.subarray(0, 40).toString());
      if (!answered) return;
      answers++;
      inFlight--;
      while (inFlight < PIPELINE) {
        inFlight++;
        c.send(request());
      }
    });
    for (; inFlight < PIPELINE; inFlight++) c.send(request());
    await c.waitClosed('the relay to cut it off', 24 * 3600_000);
  }
  cuts++;
}

void (async () => {
  for (;;) {
    try {
      await once();
    } catch {
      await sleep(100);
    }
  }
})();
