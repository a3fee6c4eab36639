// The bundled language server (dist/server.js) over stdio, as an editor drives it: kinds,
// diagnostics on open and change, completion, hover, definition, links, outline, quick fixes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { LspProcess } from '../../../harness/lsp-stdio';
import { repoRoot } from '../../../harness/paths';
import { sleep } from '../../../harness/wait';
import { lineOf, tempDir, trinity } from '../../../unit/config/helpers';

let lsp: LspProcess;
let root: string;
const uriOf = (f: string) => pathToFileURL(f).toString();

before(async () => {
  root = tempDir('agentrl-lsp-');
  fs.writeFileSync(
    path.join(root, 'flows.py'),
    'from trinity.common.workflows import WORKFLOWS\n\n\n@WORKFLOWS.register_module("my_flow")\nclass MyFlow:\n    pass\n',
  );
  lsp = LspProcess.start(process.execPath, [path.join(repoRoot, 'dist', 'server.js'), '--stdio'], { cwd: root });
  lsp.configuration = (section) => (section === 'agentrl.config' ? { debounceMs: 0 } : null);
  await lsp.initialize(uriOf(root), { locale: 'en', settings: { debounceMs: 0 } });
  // the workspace scan runs right after `initialized`: wait until it found the registration
  for (let i = 0; i < 100 && !lsp.notifications.some((n) => n.method === 'window/logMessage' && /workspace scan/.test(JSON.stringify(n.params))); i++) {
    await sleep(50);
  }
});

after(async () => {
  await lsp?.stop();
});

test('diagnostics on open and after an edit, with the kind notified', async () => {
  const file = path.join(root, 'config.yaml');
  const text = trinity({ model: { max_response_tokens: 600 } });
  const uri = uriOf(file);
  const first = lsp.nextDiagnostics(uri);
  await lsp.open(uri, text);
  const d = await first;
  const diag = d.diagnostics.find((x) => x.code === 'trinity.length.exceeds-max-model-len' && x.range.start.line === lineOf(text, 'max_model_len'))!;
  assert.equal(diag.severity, 1);
  assert.equal(diag.range.start.line, lineOf(text, 'max_model_len'));
  assert.equal(diag.source, 'Agent RL');
  assert.ok(lsp.notifications.some((n) => n.method === 'agentrl/documentKind' && (n.params as { kind: string }).kind === 'trinity'));
  const line = lineOf(text, 'max_response_tokens');
  const next = lsp.diagnosticsAt(uri, 2);
  await lsp.change(uri, 2, [{ range: { start: { line, character: 0 }, end: { line, character: 100 } }, text: '  max_response_tokens: 512' }]);
  const d2 = await next;
  assert.equal(d2.version, 2);
  assert.ok(!d2.diagnostics.some((x) => x.code === 'trinity.length.exceeds-max-model-len'));
});

test('other YAML gets no diagnostics and kind null', async () => {
  const uri = uriOf(path.join(root, 'k8s.yaml'));
  await lsp.open(uri, 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n');
  await sleep(300);
  assert.equal(lsp.diagnostics.get(uri), undefined);
  assert.ok(
    lsp.notifications.some(
      (n) => n.method === 'agentrl/documentKind' && (n.params as { uri: string; kind: unknown }).uri === uri && (n.params as { kind: unknown }).kind === null,
    ),
  );
});

test('completion, hover, definition, links, symbols and a quick fix', async () => {
  const file = path.join(root, 'flow.yaml');
  const uri = uriOf(file);
  const text = trinity({ buffer: { explorer_input: { default_workflow_type: 'my_flow' } }, synchronizer: { sync_interval: 0 } });
  const opened = lsp.nextDiagnostics(uri);
  await lsp.open(uri, text);
  const diags = await opened;
  const line = lineOf(text, 'algorithm_type');
  const col = text.split('\n')[line].indexOf('grpo');
  const items = await lsp.request<{ label: string }[]>('textDocument/completion', { textDocument: { uri }, position: { line, character: col } });
  assert.ok(items.some((i) => i.label === 'grpo'));
  const h = await lsp.request<{ contents: { value: string } }>('textDocument/hover', {
    textDocument: { uri },
    position: { line: lineOf(text, 'sync_interval'), character: 4 },
  });
  assert.match(h.contents.value, /sync_interval/);
  const wfLine = lineOf(text, 'my_flow');
  const defs = await lsp.request<{ uri: string; range: { start: { line: number } } }[]>('textDocument/definition', {
    textDocument: { uri },
    position: { line: wfLine, character: text.split('\n')[wfLine].indexOf('my_flow') + 2 },
  });
  assert.equal(defs[0].uri, uriOf(path.join(root, 'flows.py')));
  assert.equal(defs[0].range.start.line, 4);
  const links = await lsp.request<{ target: string }[]>('textDocument/documentLink', { textDocument: { uri } });
  assert.ok(links.some((l) => l.target.includes('flows.py#L5')));
  const symbols = await lsp.request<{ name: string }[]>('textDocument/documentSymbol', { textDocument: { uri } });
  assert.ok(symbols.some((s) => s.name === 'synchronizer'));
  const bad = diags.diagnostics.find((x) => x.code === 'trinity.sync.interval')!;
  const actions = await lsp.request<{ title: string; edit: { changes: Record<string, { newText: string }[]> } }[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: bad.range,
    context: { diagnostics: [bad] },
  });
  const fix = actions.find((a) => a.title === 'Set sync_interval to 1')!;
  assert.equal(fix.edit.changes[uri][0].newText, '1');
});

test('the bundle the client passes (vscode.l10n.bundle) translates diagnostics and quick fixes', async () => {
  const fr = LspProcess.start(process.execPath, [path.join(repoRoot, 'dist', 'server.js'), '--stdio'], { cwd: root });
  fr.configuration = (section) => (section === 'agentrl.config' ? { debounceMs: 0, scanWorkspace: false } : null);
  const l10nBundle = { '`sync_interval` must be positive.': '`sync_interval` doit être positif.', 'Set sync_interval to 1': 'Mettre sync_interval à 1' };
  await fr.initialize(uriOf(root), { locale: 'fr', l10nBundle, settings: { debounceMs: 0, scanWorkspace: false } });
  const uri = uriOf(path.join(root, 'fr.yaml'));
  const got = fr.nextDiagnostics(uri);
  await fr.open(uri, trinity({ synchronizer: { sync_interval: 0 } }));
  const bad = (await got).diagnostics.find((x) => x.code === 'trinity.sync.interval')!;
  assert.equal(bad.message, '`sync_interval` doit être positif.');
  const actions = await fr.request<{ title: string }[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: bad.range,
    context: { diagnostics: [bad] },
  });
  assert.ok(
    actions.some((a) => a.title === 'Mettre sync_interval à 1'),
    JSON.stringify(actions),
  );
  await fr.stop();
});

test('stdio: a message with non-ASCII text is framed whole, and the server exits when its client goes away', async () => {
  // one frame per message, with the byte length of the UTF-8 body (Chinese diagnostics)
  const zh = LspProcess.start(process.execPath, [path.join(repoRoot, 'dist', 'server.js'), '--stdio'], { cwd: root });
  zh.configuration = (section) => (section === 'agentrl.config' ? { debounceMs: 0, scanWorkspace: false } : null);
  await zh.initialize(uriOf(root), { locale: 'zh-cn', settings: { debounceMs: 0, scanWorkspace: false } });
  const uri = uriOf(path.join(root, 'zh.yaml'));
  const got = zh.nextDiagnostics(uri);
  await zh.open(uri, trinity({ model: { max_response_tokens: 600 } }));
  const d = await got;
  // no bundle from the client: a Chinese locale reads the shipped l10n/bundle.l10n.zh-cn.json
  assert.ok(
    d.diagnostics.some((x) => x.message === '`max_prompt_tokens` + `max_response_tokens`（512 + 600）超过了 `max_model_len`（1024）。'),
    JSON.stringify(d.diagnostics),
  );
  // no shutdown: closing stdin alone must end the process (no orphan when an editor dies)
  const exited = new Promise<number | null>((resolve) => zh.proc.once('exit', (code) => resolve(code)));
  zh.proc.stdin!.end();
  const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running'), 5000))]);
  if (code === 'still running') zh.proc.kill('SIGKILL');
  assert.equal(code, 1);
  zh.connection.dispose();
});
