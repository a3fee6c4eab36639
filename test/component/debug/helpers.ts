// Shared pieces of the rollout-debugger tests: a temp copy of the sample tool-calling
// workspace, the debug adapter served over a real DAP socket, and small DAP helpers.
import { after, before } from 'node:test';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { parse } from 'yaml';
import type { CheckResult, ConfigChecker } from '../../../src/feature-api/config-checker';
import { silentLogger } from '../../../src/base/log';
import { asPromise } from '../../../src/base/promise';
import { RolloutDebugSession } from '../../../src/debug/dap/session';
import type { LaunchContext } from '../../../src/debug/dap/launch';
import { repoRoot, venvPython } from '../../harness/paths';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../../harness/model-server';

/** The folder holding the runner package (src/debug/runner/agentrl_runner), as dist/runner does. */
export const runnerDir = path.join(repoRoot, 'src', 'debug', 'runner');
/** The venv has the openai SDK (and debugpy); plain python3 exercises the stdlib client. */
export const sdkPython = fs.existsSync(venvPython) ? venvPython : 'python3';

/**
 * TEST DOUBLE for the config engine (src/config, injected as ConfigChecker in the
 * extension): parses the YAML and detects the kind, reporting no diagnostics unless the
 * file contains the marker `# test-double: error`.
 */
export class ConfigCheckerTestDouble implements ConfigChecker {
  check(file: string, text?: string): Promise<CheckResult> {
    return asPromise(() => this.checkNow(file, text));
  }

  private checkNow(file: string, text?: string): CheckResult {
    const src = text ?? fs.readFileSync(file, 'utf8');
    const doc = parse(src) as Record<string, unknown> | null;
    const kind = doc && 'astuner' in doc ? 'astuner' : doc && 'ajet' in doc ? 'ajet' : doc && 'buffer' in doc ? 'trinity' : null;
    const line = src.split('\n').findIndex((l) => l.includes('# test-double: error'));
    const diagnostics =
      line >= 0
        ? [
            {
              severity: 'error' as const,
              code: 'test.double',
              message: 'marked as an error by the test double',
              path: 'buffer',
              range: { start: { line, character: 0 }, end: { line, character: 5 } },
            },
          ]
        : [];
    return { file, kind, diagnostics, resolved: doc ?? undefined };
  }
}

/** A fresh copy of sample-workspace/toolcall (tests write runs into it). */
export function toolcallWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-debug-'));
  fs.cpSync(path.join(repoRoot, 'sample-workspace', 'toolcall'), dir, { recursive: true });
  return dir;
}

export interface Adapter {
  dc: DebugClient;
  close: () => Promise<void>;
}

/** The debug adapter in this process, spoken to over a real DAP socket. */
export async function startAdapter(extra: Partial<LaunchContext> = {}): Promise<Adapter> {
  const deps: LaunchContext = { checker: new ConfigCheckerTestDouble(), logger: silentLogger, runnerDir, ...extra };
  const sessions: RolloutDebugSession[] = [];
  const server = net.createServer((socket) => {
    const session = new RolloutDebugSession(deps);
    sessions.push(session);
    session.setRunAsServer(true);
    session.start(socket, socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const dc = new DebugClient('node', '', 'agentrl');
  await dc.start((server.address() as net.AddressInfo).port);
  return {
    dc,
    async close() {
      await dc.disconnectRequest({}).catch(() => undefined);
      await dc.stop().catch(() => undefined);
      server.close();
    },
  };
}

export interface LaunchOptions {
  functionBreakpoints?: string[];
  exceptionFilters?: string[];
}

/** initialize → launch, setting breakpoints between `initialized` and configurationDone. */
export async function launch(dc: DebugClient, args: Record<string, unknown>, opts: LaunchOptions = {}): Promise<DebugProtocol.LaunchResponse> {
  const configured = dc.waitForEvent('initialized', 10000).then(async () => {
    if (opts.functionBreakpoints) await dc.setFunctionBreakpointsRequest({ breakpoints: opts.functionBreakpoints.map((name) => ({ name })) });
    if (opts.exceptionFilters) await dc.setExceptionBreakpointsRequest({ filters: opts.exceptionFilters });
    await dc.configurationDoneRequest();
  });
  const launched = dc.launch({ type: 'agentrl', request: 'launch', ...args });
  // Both awaited at once: a launch refused before the configuration is done is no unhandled rejection
  const [, response] = await Promise.all([configured, launched]);
  return response;
}

export async function topFrame(dc: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  const st = await dc.stackTraceRequest({ threadId });
  return st.body.stackFrames[0];
}

/** Variables of a frame's scope, by scope name. */
export async function scopeVars(dc: DebugClient, frameId: number, scope: string): Promise<DebugProtocol.Variable[]> {
  const scopes = await dc.scopesRequest({ frameId });
  const s = scopes.body.scopes.find((x) => x.name === scope);
  if (!s) throw new Error(`no scope ${scope} (have ${scopes.body.scopes.map((x) => x.name).join(', ')})`);
  return (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables;
}

export async function children(dc: DebugClient, v: DebugProtocol.Variable, start?: number, count?: number): Promise<DebugProtocol.Variable[]> {
  return (await dc.variablesRequest({ variablesReference: v.variablesReference, start, count })).body.variables;
}

export const byName = (vars: DebugProtocol.Variable[], name: string): DebugProtocol.Variable => {
  const v = vars.find((x) => x.name === name);
  if (!v) throw new Error(`no variable ${name} (have ${vars.map((x) => x.name).join(', ')})`);
  return v;
};

/** Collects every output event text. */
export function collectOutput(dc: DebugClient): { text: () => string; events: DebugProtocol.OutputEvent[] } {
  const events: DebugProtocol.OutputEvent[] = [];
  dc.on('output', (e: DebugProtocol.OutputEvent) => events.push(e));
  return { text: () => events.map((e) => e.body.output).join(''), events };
}

export function latestRun(ws: string): string {
  const base = path.join(ws, '.agentrl', 'runs');
  const runs = fs.readdirSync(base).sort();
  return path.join(base, runs[runs.length - 1]);
}

export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export const skipWithoutModel = !modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)';

/** Suite hooks: the real model server and a fresh toolcall workspace (`setup` adds files). */
export function modelAndWorkspace(setup?: (ws: string) => void): { readonly model: ModelServer; readonly ws: string } {
  const ctx = {} as { model: ModelServer; ws: string };
  before(async () => {
    ctx.model = await startModelServer();
    ctx.ws = toolcallWorkspace();
    setup?.(ctx.ws);
  });
  after(async () => {
    await ctx.model?.stop();
    if (ctx.ws) fs.rmSync(ctx.ws, { recursive: true, force: true });
  });
  return ctx;
}
