// Assembles the Python relay package (src/relay/python/agentrl_relay/) into the one file users
// copy to a GPU node, dist/agentrl_relay.py: the modules in dependency order, their relative
// imports dropped (the names they import are then the file's own globals), one
// `from __future__ import annotations` at the top. The package keeps the rule that makes this
// sound: modules import each other only as `from .module import names`, and no two modules
// define the same top-level name — checked here, so a violation fails the build.
import fs from 'node:fs';
import path from 'node:path';

const RELATIVE = /^from \.(\w*) import (\(([^)]*)\)|.+)$/gm;
const DEFINED = /^(?:async def|def|class) (\w+)|^(\w+(?:\s*,\s*\w+)*)\s*(?::[^=\n]+)?=(?!=)/gm;

function parseModule(name, text) {
  const deps = new Map();
  for (const m of text.matchAll(RELATIVE)) {
    const names = (m[3] ?? m[2])
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    deps.set(m[1] || '__init__', [...(deps.get(m[1] || '__init__') ?? []), ...names]);
  }
  const defined = new Set();
  const body = text.replace(RELATIVE, '');
  for (const m of body.matchAll(DEFINED)) for (const n of (m[1] ?? m[2]).split(',')) defined.add(n.trim());
  return { name, text, deps, defined };
}

/** Dependencies first (depth-first), in a stable order; fails on a cycle. */
function order(modules) {
  const out = [];
  const state = new Map();
  const visit = (name, trail) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'busy') throw new Error(`python relay: import cycle ${[...trail, name].join(' -> ')}`);
    const m = modules.get(name);
    if (!m) throw new Error(`python relay: ${trail.at(-1)} imports a missing module .${name}`);
    state.set(name, 'busy');
    for (const dep of [...m.deps.keys()].sort()) visit(dep, [...trail, name]);
    state.set(name, 'done');
    out.push(m);
  };
  for (const name of [...modules.keys()].sort()) if (name !== '__main__') visit(name, []);
  visit('__main__', []);
  return out;
}

/** The single-file relay as text. */
export function bundlePythonRelay(root, version) {
  const dir = path.join(root, 'src', 'relay', 'python', 'agentrl_relay');
  const modules = new Map();
  for (const f of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.py'))
    .sort()) {
    modules.set(f.slice(0, -3), parseModule(f.slice(0, -3), fs.readFileSync(path.join(dir, f), 'utf8')));
  }
  const owner = new Map();
  for (const m of modules.values()) {
    for (const n of m.defined) {
      if (n.startsWith('__') && n.endsWith('__')) continue;
      if (owner.has(n))
        throw new Error(`python relay: '${n}' is defined in both ${owner.get(n)}.py and ${m.name}.py (the single file would merge them): rename one`);
      owner.set(n, m.name);
    }
  }
  for (const m of modules.values()) {
    for (const [dep, names] of m.deps) {
      for (const n of names) {
        const target = modules.get(dep);
        if (!target?.defined.has(n)) throw new Error(`python relay: ${m.name}.py imports ${n} from .${dep}, which does not define it`);
      }
    }
  }
  const parts = [
    '#!/usr/bin/env python3',
    '# agentrl_relay.py — the relay of Agent RL Studio for nodes with Python (>= 3.8) and no Node:',
    '#   python3 agentrl_relay.py --job-dir /ckpt/<project>/<run>      (--help for every option)',
    '# Standard library only. Assembled from the modules of src/relay/python/agentrl_relay by',
    '# esbuild.mjs (scripts/bundle-python-relay.mjs); edit those, not this file.',
    'from __future__ import annotations',
    '',
  ];
  for (const m of order(modules)) {
    let text = m.text.replace(RELATIVE, '').replace(/^from __future__ import annotations\n/m, '');
    if (m.name === '__init__') text = text.replace(/^__version__ = .*$/m, `__version__ = ${JSON.stringify(version)}`);
    parts.push(`# ---- ${m.name}.py ${'-'.repeat(Math.max(4, 80 - m.name.length))}`, text.replace(/\n{3,}/g, '\n\n\n').trim(), '', '');
  }
  return parts.join('\n');
}

/** Writes the bundle, executable, to `file` (relative to `root`). */
export function writePythonRelay(root, version, file) {
  const out = path.join(root, file);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, bundlePythonRelay(root, version));
  fs.chmodSync(out, 0o755);
  return out;
}
