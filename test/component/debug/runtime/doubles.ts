// Pieces of the runtime tests that talk to the gateway over real HTTP without a model:
// a named test double for the model endpoint and a small gateway client.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { silentLogger } from '../../../../src/base/log';
import { valueText } from '../../../../src/base/value-text';
import { HEADER_EPISODE } from '../../../../src/debug/trajectory/runner-protocol';
import type { ChatCompletion, ChatCompletionRequest } from '../../../../src/debug/trajectory/trajectory';
import type { CallContext, ChatUpstream, UpstreamResult } from '../../../../src/debug/gateway/model-endpoint';
import { RolloutRuntime, type RuntimeOptions } from '../../../../src/debug/runtime/rollout-runtime';

/**
 * TEST DOUBLE for the model endpoint (a ChatUpstream, the gateway's boundary to a model
 * server): answers `<label>: <last user message>` at once and keeps what it was sent, so
 * tests can see exactly which request reached which model, in any order, without the
 * seconds a real model takes per call. The real model is used in the integration tests.
 */
export class EchoModelDouble implements ChatUpstream {
  readonly seen: { body: ChatCompletionRequest; ctx: CallContext }[] = [];
  constructor(readonly label: string) {}
  complete(body: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamResult> {
    this.seen.push({ body: JSON.parse(JSON.stringify(body)) as ChatCompletionRequest, ctx });
    const users = body.messages.filter((m) => m.role === 'user');
    const content = `${this.label}: ${valueText(users[users.length - 1]?.content ?? '')}`;
    const response: ChatCompletion = {
      id: `c${this.seen.length}`,
      object: 'chat.completion',
      model: this.label,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
    return Promise.resolve({ ok: true, response });
  }
  models(): Promise<unknown> {
    return Promise.resolve({ object: 'list', data: [{ id: this.label, object: 'model' }] });
  }
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-rt-'));
}

export function runtime(dir: string, opts: Partial<RuntimeOptions>): RolloutRuntime {
  return new RolloutRuntime({
    plan: {
      kind: 'trinity',
      cwd: dir,
      tasks: { source: { type: 'inline', rows: [] } },
      repeat: 1,
      workflow: 'test',
      workflowArgs: {},
      rewardArgs: {},
      format: {},
      rolloutArgs: {},
      config: {},
    },
    upstream: new EchoModelDouble('main'),
    python: 'python3',
    runnerDir: '',
    env: {},
    pythonDebugger: false,
    runRoot: dir,
    meta: {},
    backbone: 'test',
    logger: silentLogger,
    ...opts,
  });
}

/** One chat call through the gateway as the runner's client makes it. */
export async function chat(
  base: string,
  apiKey: string,
  episode: string,
  messages: ChatCompletionRequest['messages'],
  extra: Record<string, string> = {},
): Promise<{ status: number; content: string }> {
  const r = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', [HEADER_EPISODE]: episode, ...extra },
    body: JSON.stringify({ model: 'm', messages }),
  });
  const body = (await r.json()) as ChatCompletion;
  return { status: r.status, content: valueText(body.choices?.[0]?.message?.content ?? JSON.stringify(body)) };
}

export const user = (content: string) => ({ role: 'user', content });

/** Resolves when `p` settles, or with 'pending' after `ms` (a safety net, not a timing check). */
export function settledWithin<T>(p: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms).unref())]);
}
