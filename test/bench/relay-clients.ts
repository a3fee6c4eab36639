// Child process of the relay bench: N extra clients that stream from a relay until killed,
// so the measuring client's process is not also decoding their batches.
//   node relay-clients.js URL N
import { RelayClient } from '../../src/relay-protocol/client';
import { pointCount } from '../../src/relay-protocol/points-frame';

const [url, n] = process.argv.slice(2);
let points = 0;
for (let i = 0; i < Number(n); i++) {
  const c = new RelayClient({ url });
  c.on('points', (b) => (points += pointCount(b)));
  c.start();
}
setInterval(() => process.stdout.write(`${points}\n`), 200);
