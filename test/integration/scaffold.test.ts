// "Agent RL: New Workflow…" in the real VS Code extension host, driven with preset answers (the
// command argument), so no QuickPick is shown; test/e2e/scaffold.e2e.ts drives the UI itself.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { NewWorkflowResult } from '../../src/scaffold/host';
import { EXTENSION_ID, activated } from './extension.test';

suite('scaffold: New Workflow', () => {
  let ws = '';
  const launchFile = () => path.join(ws, '.vscode', 'launch.json');
  const run = (presets: object) => vscode.commands.executeCommand<NewWorkflowResult | undefined>('agentrl.newWorkflow', presets);
  /** launch.json as VS Code reads it (it picks up the file's change through its file watcher). */
  async function launchConfigs(until: (names: string[]) => boolean): Promise<{ name: string; type: string; config?: string; cwd?: string }[]> {
    const read = () =>
      vscode.workspace
        .getConfiguration('launch', vscode.workspace.workspaceFolders![0].uri)
        .get<{ name: string; type: string; config?: string; cwd?: string }[]>('configurations') ?? [];
    for (let i = 0; i < 100 && !until(read().map((c) => c.name)); i++) await new Promise((r) => setTimeout(r, 100));
    return read();
  }
  const tree = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tree(path.join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]));

  suiteSetup(async () => {
    await activated();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
  });

  test('the commands are contributed: palette title, Explorer folder menu', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('agentrl.newWorkflow') && commands.includes('agentrl.newWorkflowHere'));
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
      contributes: { commands: { command: string; title: string; category: string }[]; menus: Record<string, { command: string; when: string }[]> };
    };
    const cmd = pkg.contributes.commands.find((c) => c.command === 'agentrl.newWorkflow')!;
    assert.strictEqual(`${cmd.category}: ${cmd.title}`, 'Agent RL: New Workflow…');
    const here = pkg.contributes.menus['explorer/context'].find((m) => m.command === 'agentrl.newWorkflowHere');
    assert.ok(here && /explorerResourceIsFolder/.test(here.when));
  });

  test('with preset answers it creates the project, keeps launch.json comments and opens the workflow', async () => {
    fs.mkdirSync(path.dirname(launchFile()), { recursive: true });
    fs.writeFileSync(
      launchFile(),
      '{\n  // keep me\n  "version": "0.2.0",\n  "configurations": [\n    { "name": "mine", "type": "node", "request": "launch" } /* and me */\n  ]\n}\n',
    );
    const result = await run({
      framework: 'trinity',
      template: 'trinity-math',
      name: 'it_agent',
      target: ws,
      model: 'Qwen/Qwen2.5-0.5B-Instruct',
      data: 'sample',
    });
    assert.ok(result?.ok, JSON.stringify(result));
    const project = path.join(ws, 'it_agent');
    assert.strictEqual(result.projectDir, project);
    assert.deepStrictEqual(tree(project).sort(), ['README.md', 'config.yaml', 'data/test.jsonl', 'data/train.jsonl', 'reward.py', 'workflow.py']);
    assert.match(fs.readFileSync(path.join(project, 'workflow.py'), 'utf8'), /@WORKFLOWS\.register_module\("it_agent_workflow"\)/);

    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'an editor is open');
    assert.strictEqual(editor.document.uri.fsPath, path.join(project, 'workflow.py'));

    const text = fs.readFileSync(launchFile(), 'utf8');
    assert.ok(text.includes('// keep me') && text.includes('/* and me */'), text);
    // VS Code's own reading of launch.json sees both entries.
    const configs = await launchConfigs((names) => names.includes('mine') && names.length === 2);
    assert.deepStrictEqual(
      configs.map((c) => c.name),
      ['mine', 'Debug it_agent rollout'],
    );
    assert.strictEqual(configs[1].type, 'agentrl');
    assert.strictEqual(configs[1].config, '${workspaceFolder}/it_agent/config.yaml');
  });

  test('the same name again is refused cleanly and changes nothing', async () => {
    const workflow = path.join(ws, 'it_agent', 'workflow.py');
    fs.appendFileSync(workflow, '# edited by the user\n');
    const before = [fs.readFileSync(workflow, 'utf8'), fs.readFileSync(launchFile(), 'utf8')];
    const result = await run({ template: 'trinity-react', name: 'it_agent', target: ws, model: 'Qwen/Qwen2.5-0.5B-Instruct', data: 'sample' });
    assert.ok(result && !result.ok);
    assert.match(result.error, /it_agent already exists in .*: choose another name\./);
    assert.deepStrictEqual([fs.readFileSync(workflow, 'utf8'), fs.readFileSync(launchFile(), 'utf8')], before);
  });

  test('../x and class are refused with the reason; nothing is created', async () => {
    const before = tree(ws).sort();
    for (const [name, reason] of [
      ['../x', /'\.\.\/x' is not a folder name/],
      ['class', /'class' is a Python keyword/],
    ] as const) {
      const result = await run({ template: 'trinity-math', name, target: ws, model: 'm', data: 'sample' });
      assert.ok(result && !result.ok);
      assert.match(result.error, reason);
    }
    assert.deepStrictEqual(tree(ws).sort(), before);
    assert.ok(!fs.existsSync(path.join(path.dirname(ws), 'x')));
  });

  test('a preset folder outside the workspace is refused (command arguments may come from links)', async () => {
    const outside = path.dirname(ws);
    const result = await run({ template: 'trinity-math', name: 'escape_agent', target: outside, model: 'm', data: 'sample' });
    assert.ok(result && !result.ok);
    assert.match(result.error, /is not inside an open workspace folder/);
    assert.ok(!fs.existsSync(path.join(outside, 'escape_agent')));
  });

  test('an AgentJet project from a user JSONL file, in a sub-folder given as a Uri', async () => {
    const sub = path.join(ws, 'agents');
    fs.mkdirSync(sub, { recursive: true });
    const rows = path.join(ws, 'rows.jsonl');
    fs.writeFileSync(rows, '{"task_id": "a", "main_query": "Reach 10 with [2, 5]", "target": 10, "nums": [2, 5]}\n');
    const result = await run({
      template: 'ajet-countdown',
      name: 'cd_agent',
      target: vscode.Uri.file(sub),
      model: 'Qwen/Qwen2.5-0.5B-Instruct',
      data: { kind: 'file', path: rows },
    });
    assert.ok(result?.ok, JSON.stringify(result));
    assert.strictEqual(fs.readFileSync(path.join(sub, 'cd_agent', 'data', 'train.jsonl'), 'utf8'), fs.readFileSync(rows, 'utf8'));
    assert.match(fs.readFileSync(path.join(sub, 'cd_agent', 'config.yaml'), 'utf8'), /user_workflow: cd_agent\.workflow->CountdownWorkflow/);
    const configs = await launchConfigs((names) => names.includes('Debug cd_agent rollout'));
    const entry = configs.find((c) => c.name === 'Debug cd_agent rollout');
    assert.ok(entry);
    assert.strictEqual(entry.cwd, '${workspaceFolder}/agents', 'module->Class references resolve from the folder above the project');
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, path.join(sub, 'cd_agent', 'workflow.py'));
  });
});
