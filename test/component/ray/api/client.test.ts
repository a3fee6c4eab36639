// The Ray client's error paths against a local fake dashboard (node:http): a dead URL, a URL
// that is not a Ray dashboard, an HTTP 500 from Ray, a refused job, a package over the size
// limit — each a RayError / PackageTooLargeError with a clear message; and the log stream
// falling back from the WebSocket to the plain GET.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { RayClient, RayError, tailLogs } from '../../../../src/ray/api/client';
import { PackageTooLargeError } from '../../../../src/ray/submit/package';
import { submitRun } from '../../../../src/ray/submit/submit';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
let handler: Handler = (_q, _b, res) => res.end();
let server: http.Server;
let base: string;
const requests: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const json = (res: http.ServerResponse, status: number, v: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(v));
};

async function rejects(p: Promise<unknown>, kind: string, re: RegExp): Promise<RayError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof RayError, `a RayError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    assert.match(e.message, re);
    return e;
  }
  assert.fail('did not reject');
}

test('a dead dashboard URL: unreachable, naming the URL and the cause', async () => {
  const dead = http.createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  const port = (dead.address() as AddressInfo).port;
  await new Promise<void>((r) => dead.close(() => r()));
  const e = await rejects(
    new RayClient({ url: `127.0.0.1:${port}`, timeoutMs: 2000 }).version(),
    'unreachable',
    new RegExp(`cannot reach the Ray dashboard at http://127\\.0\\.0\\.1:${port}`),
  );
  assert.match(e.detail ?? '', /ECONNREFUSED/);
});

test('a wrong URL (some other web server): not-ray', async () => {
  handler = (_q, _b, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>Jupyter</body></html>');
  };
  await rejects(new RayClient({ url: base }).version(), 'not-ray', /does not look like a Ray dashboard/);
  handler = (_q, _b, res) => {
    res.writeHead(404);
    res.end('Not Found');
  };
  await rejects(new RayClient({ url: base }).jobs(), 'not-ray', /HTTP 404/);
});

test("an HTTP 500 from Ray: http error with Ray's message", async () => {
  handler = (_q, _b, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('Traceback ... RuntimeError: GCS unavailable');
  };
  const e = await rejects(new RayClient({ url: base }).nodes(), 'http', /HTTP 500: Traceback \.\.\. RuntimeError: GCS unavailable/);
  assert.equal(e.status, 500);
  // State API failure reported inside a 200
  handler = (_q, _b, res) => json(res, 200, { result: false, msg: 'Failed to retrieve actors: timeout', data: {} });
  await rejects(new RayClient({ url: base }).actors('p/n'), 'http', /Failed to retrieve actors: timeout/);
});

test("a refused job: refused, with Ray's reason", async () => {
  handler = (req, _b, res) => {
    if (req.method === 'POST' && req.url === '/api/jobs/') {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('Job with submission_id run-1 already exists. Please use a different submission_id.');
    } else json(res, 200, {});
  };
  const e = await rejects(
    new RayClient({ url: base }).submit({ entrypoint: 'true', submission_id: 'run-1' }),
    'refused',
    /Ray refused the job: Job with submission_id run-1 already exists/,
  );
  assert.equal(e.status, 400);
});

test('a package over the size limit: PackageTooLargeError naming the largest files, nothing uploaded', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-pkg-'));
  fs.writeFileSync(path.join(dir, 'train.yaml'), 'project: p\n');
  fs.writeFileSync(path.join(dir, 'model.safetensors'), Buffer.alloc(3 * 2 ** 20));
  requests.length = 0;
  handler = (_q, _b, res) => json(res, 200, {});
  await assert.rejects(
    submitRun(new RayClient({ url: base }), { folder: dir, entrypoint: 'true', limitBytes: 2 ** 20 }),
    (e: unknown) => e instanceof PackageTooLargeError && /model\.safetensors \(3\.0 MB\)/.test(e.message) && /limit 1\.0 MB/.test(e.message),
  );
  assert.deepEqual(requests, [], 'no request sent');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('State API wrapper, package reuse and the request count', async () => {
  let uploads = 0;
  handler = (req, body, res) => {
    if (req.url!.startsWith('/api/v0/nodes'))
      return json(res, 200, {
        result: true,
        msg: '',
        data: { result: { total: 1, result: [{ node_id: 'n1', node_ip: '127.0.0.1', is_head_node: true, state: 'ALIVE', resources_total: { CPU: 2 } }] } },
      });
    if (req.method === 'GET' && req.url!.startsWith('/api/packages/gcs/')) {
      res.writeHead(uploads ? 200 : 404);
      return res.end();
    }
    if (req.method === 'PUT') {
      uploads++;
      assert.equal(body.slice(0, 2), 'PK');
      return json(res, 200, {});
    }
    if (req.method === 'POST' && req.url === '/api/jobs/')
      return json(res, 200, { submission_id: (JSON.parse(body) as { submission_id?: string }).submission_id ?? 'raysubmit_x' });
    json(res, 404, {});
  };
  let n = 0;
  const c = new RayClient({ url: base, onRequest: () => n++ });
  const nodes = await c.nodes();
  assert.equal(nodes[0].node_id, 'n1');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-pkg-'));
  fs.writeFileSync(path.join(dir, 'a.py'), 'print(1)\n');
  const s1 = await submitRun(c, { folder: dir, entrypoint: 'python a.py', limitBytes: 2 ** 20 });
  const s2 = await submitRun(c, { folder: dir, entrypoint: 'python a.py', limitBytes: 2 ** 20 });
  assert.equal(s1.uploaded, true);
  assert.equal(s2.uploaded, false, 'reused when the hash exists');
  assert.equal(uploads, 1);
  assert.equal(s1.request.runtime_env?.working_dir, s1.pkg.uri);
  assert.match(s1.pkg.uri, /^gcs:\/\/_ray_pkg_[0-9a-f]{16}\.zip$/);
  assert.equal(n, 1 + 3 + 2);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('logs: falls back from the WebSocket to polling GET …/logs, emitting only what is new', async () => {
  let text = 'line 1\n';
  let polls = 0;
  handler = (req, _b, res) => {
    if (req.url === '/api/jobs/j1/logs') {
      polls++;
      if (polls === 2) text += 'line 2\n';
      return json(res, 200, { logs: text });
    }
    if (req.url === '/api/jobs/j1') return json(res, 200, { submission_id: 'j1', status: polls >= 3 ? 'SUCCEEDED' : 'RUNNING', entrypoint: 'x' });
    json(res, 404, {});
  };
  let got = '';
  await new Promise<void>((resolve, reject) => {
    const t = tailLogs(
      new RayClient({ url: base }),
      'j1',
      (c) => (got += c),
      (err) => (err ? reject(err) : resolve()),
      20,
    );
    setTimeout(() => assert.equal(t.mode, 'poll'), 200);
  });
  assert.equal(got, 'line 1\nline 2\n');
});
