// Child process of the hostile-client bench: a client that subscribes, takes its backlog, then
// stops reading and floods small `detail` requests (each asks for every point of a tag) as fast
// as the relay takes them; when the relay cuts it off it connects again, so the pressure lasts.
// Prints `<requests sent> <times cut off>` every 200 ms.
//   node relay-hostile-client.js URL SOURCE FID OFFSET TAG
import { WireClient } from '../harness/relay-wire';
import { sleep } from '../harness/wait';

const [url, source, fid, offsetArg, tag] = process.argv.slice(2);
let requests = 0;
let cuts = 0;
setInterval(() => process.stdout.write(`${requests} ${cuts}\n`), 200);

async function once(): Promise<void> {
  const c = await WireClient.connect(url);
  c.subscribe({ experiences: false });
  await c.waitFor('its backlog', () => c.of('heartbeat').some((h) => h.caughtUp === true), 120_000);
  c.stopReading();
  const detail = () => ({ type: 'detail', request: requests++, source, tag, from: 0, to: 1e9, maxPoints: 100_000, cursor: { source, fid, offset: Number(offsetArg) } });
  while (!c.closed) {
    if (c.ws.bufferedAmount < 1024 * 1024) for (let i = 0; i < 50; i++) c.send(detail());
    await sleep(10);
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
