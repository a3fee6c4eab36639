// How the editor reaches a paused worker's debugger, from how it reaches the dashboard: the
// cases the forwarder plugs into (a tunnel to a remote head, a worker on its node's loopback).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { reach } from '../../../../src/ray/paused/reach';

const here = ['127.0.0.1', '::1', '192.168.1.5'];

test('a local cluster (dashboard and worker on loopback, or on an address of this machine): direct', () => {
  assert.deepEqual(reach({ ip: '127.0.0.1', port: 4000 }, { dashboard: 'http://127.0.0.1:8265', localAddresses: here }), {
    kind: 'direct',
    host: '127.0.0.1',
    port: 4000,
    why: 'loopback', // or a tunnel to a one-machine cluster: the Attach action makes sure
  });
  assert.equal(reach({ ip: '192.168.1.5', port: 4000 }, { dashboard: 'http://127.0.0.1:8265', localAddresses: here }).kind, 'direct');
  assert.equal(reach({ ip: '::1', port: 4000 }, { dashboard: 'http://[::1]:8265', localAddresses: here }).kind, 'direct');
});

test('the dashboard through an SSH tunnel, the worker on another machine: needs forwarding (reach-worker.ts finds the path)', () => {
  const r = reach({ ip: '10.0.0.7', port: 41473 }, { dashboard: 'http://localhost:8265', localAddresses: here });
  assert.deepEqual(r, { kind: 'forward', ip: '10.0.0.7', port: 41473, why: 'tunnel' });
});

test('a worker on its own loopback while the dashboard is remote: needs forwarding', () => {
  assert.deepEqual(reach({ ip: '127.0.0.1', port: 5 }, { dashboard: 'http://10.0.0.2:8265', localAddresses: here }), {
    kind: 'forward',
    ip: '127.0.0.1',
    port: 5,
    why: 'worker-loopback',
  });
});

test('the dashboard reached over the network: the worker at the same address, or routable the same way', () => {
  assert.deepEqual(reach({ ip: '10.0.0.2', port: 7 }, { dashboard: 'http://10.0.0.2:8265', localAddresses: here }), {
    kind: 'direct',
    host: '10.0.0.2',
    port: 7,
    why: 'dashboard-host',
  });
  assert.equal(reach({ ip: '10.0.0.9', port: 7 }, { dashboard: 'http://10.0.0.2:8265', localAddresses: here }).kind, 'direct');
});
