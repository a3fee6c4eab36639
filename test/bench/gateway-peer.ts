// The peer of `npm run bench -- gateway`: the least any Node HTTP proxy in front of the model
// server costs on this machine. A keep-alive node:http forwarder that does nothing else (no
// episode lookup, no recording, no SDK), in a process of its own like the gateway's host.
// The bench reports the gateway's overhead next to this floor.
//   forked by gateway.bench.ts with the upstream base URL; sends back its own base URL.
import * as http from 'http';

const upstream = new URL(process.argv[2]);
const agent = new http.Agent({ keepAlive: true });
const prefix = upstream.pathname.replace(/\/+$/, '');

const server = http.createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (b: Buffer) => parts.push(b));
  req.on('end', () => {
    const body = Buffer.concat(parts);
    const out = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: prefix + (req.url ?? '').replace(/^\/v1/, ''),
        method: req.method,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (up) => {
        const got: Buffer[] = [];
        up.on('data', (b: Buffer) => got.push(b));
        up.on('end', () => {
          const reply = Buffer.concat(got);
          res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json', 'content-length': reply.length });
          res.end(reply);
        });
      },
    );
    out.on('error', () => res.writeHead(502).end());
    out.end(body);
  });
});

server.listen(0, '127.0.0.1', () => process.send!(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1`));
process.on('disconnect', () => process.exit(0));
