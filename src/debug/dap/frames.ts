// How an episode's turns look in the debugger: one stack frame per turn (newest on top,
// opening the workflow line that made the call) and the scopes of each frame
// (Request / Response / Tool call / Exception / Episode), editable where the run is held.
import * as path from 'path';
import { Source, StackFrame } from '@vscode/debugadapter';
import { english, type L10n } from '../../base/l10n';
import type { RecordedExperience } from '../experience/recorded';
import type { SourceFrame } from '../trajectory/runner-protocol';
import { deliveredOf, type Episode, type LlmTurn, type EpisodeTurn } from '../runtime/episode';
import { editableRequest, editableResponse, syncToolTurns } from '../runtime/edit-copies';
import type { RunHandle } from '../runtime/run-handle';
import { logprobSummary, type EditTarget, type Node } from './variables';

const short = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n)}…` : s);

function frameName(ep: Episode, t: EpisodeTurn): string {
  switch (t.kind) {
    case 'llm': {
      const head = t.role ? `${t.role} #${t.index + 1}` : `llm #${t.index + 1}`;
      if (t.error) return `${head} ✗ ${t.error.kind}`;
      if (t.state === 'pending') return `${head} ▸ request pending`;
      if (t.state === 'inflight') return `${head} … waiting for the model`;
      const msg = deliveredOf(t)?.choices?.[0]?.message;
      if (msg?.tool_calls?.length) return `${head} → ${msg.tool_calls.map((c) => c.function.name).join(', ')}`;
      return `${head} → ${short(JSON.stringify(msg?.content ?? ''))}`;
    }
    case 'tool':
      return `tool ${t.name}(${short(t.arguments, 50)})${t.result !== undefined ? (t.error ? ' ✗' : ' ✓') : ''}`;
    case 'exception':
      return `⚠ ${t.error.type}: ${short(t.error.message)}`;
    case 'reward':
      return `${ep.id} reward ${t.reward ?? 'none'}`;
  }
}

function sourceOf(ep: Episode, t: EpisodeTurn): SourceFrame | undefined {
  switch (t.kind) {
    case 'llm':
      return t.stack[0];
    case 'tool':
      return t.source;
    case 'exception': {
      const frames = t.error.traceback as (SourceFrame & { user?: boolean })[];
      return frames.find((f) => f.user) ?? frames[0];
    }
    case 'reward': {
      const last = [...ep.turns].reverse().find((x): x is LlmTurn => x.kind === 'llm');
      return last?.stack[0];
    }
  }
}

export function stackFrame(id: number, ep: Episode, t: EpisodeTurn): StackFrame {
  const src = sourceOf(ep, t);
  const frame = src ? new StackFrame(id, frameName(ep, t), new Source(path.basename(src.path), src.path), src.line, 1) : new StackFrame(id, frameName(ep, t));
  if (!src) frame.presentationHint = 'label';
  return frame;
}

export interface ScopeSpec {
  name: string;
  nodes: Node[];
  expensive?: boolean;
  presentationHint?: 'arguments' | 'locals' | 'registers';
  /** The LLM call a Response scope shows ("Show tokens" asks for it by the scope). */
  call?: LlmTurn;
  /** The episode whose returned experiences an Episode scope shows ("Show tokens" asks for them by the scope). */
  returned?: Episode;
}

/** The context-menu key of the Response scope's `tokens` variable ("Show tokens"). */
const TOKENS_MENU_CONTEXT = 'agentrlCallTokens';
/** The context-menu key of the Episode scope's `experiences` ("Show tokens" of what training sees). */
const RETURNED_MENU_CONTEXT = 'agentrlExperienceTokens';

/** What the scopes need of the run: where it is held (only what a stop holds may be edited). */
type HeldRun = Pick<RunHandle, 'stopOf'>;

/** Edit targets for the pending request / held reply of `turn`. */
function requestEdit(rt: HeldRun, ep: Episode, t: LlmTurn): EditTarget {
  return {
    allowed: () => rt.stopOf(ep)?.turn === t && rt.stopOf(ep)?.editable === 'request' && t.state === 'pending',
    edit: () => editableRequest(t),
  };
}
function responseEdit(rt: HeldRun, ep: Episode, t: LlmTurn, holder: EpisodeTurn): EditTarget {
  return {
    allowed: () => rt.stopOf(ep)?.turn === holder && rt.stopOf(ep)?.editable === 'response',
    edit: () => editableResponse(t),
    changed: () => syncToolTurns(ep, t),
  };
}

function llmScopes(rt: HeldRun, ep: Episode, t: LlmTurn, l10n: L10n): ScopeSpec[] {
  const req = () => t.sent ?? t.request;
  const edit = requestEdit(rt, ep, t);
  const requestNodes: Node[] = [
    { name: 'messages', root: req, path: ['messages'], edit },
    ...(req().tools ? [{ name: 'tools', root: req, path: ['tools'], edit }] : []),
  ];
  for (const k of Object.keys(req())) if (k !== 'messages' && k !== 'tools') requestNodes.push({ name: k, root: req, path: [k], edit });
  if (t.role) requestNodes.unshift({ name: 'role', root: () => t.role, path: [], preview: l10n.t('{0} (explorer.auxiliary_models)', t.role) });
  if (t.sent)
    requestNodes.push({
      name: 'original request',
      root: () => t.request,
      path: [],
      preview:
        t.carried && !t.userEdited
          ? l10n.t('as the workflow sent it (an earlier edit of this episode applied)')
          : l10n.t('as the workflow sent it (edited since)'),
    });
  requestNodes.push({ name: 'python stack', root: () => t.stack.map((f) => `${f.name ?? '?'} (${f.path}:${f.line})`), path: [] });
  const scopes: ScopeSpec[] = [{ name: l10n.t('Request'), nodes: requestNodes, presentationHint: 'arguments' }];

  const resp = () => deliveredOf(t);
  const choice = ['choices', 0];
  const responseNodes: Node[] = [];
  if (t.error) {
    responseNodes.push({ name: 'error', root: () => t.error, path: [] });
    if (t.divergence) responseNodes.push({ name: 'diff', root: () => t.divergence!.diff.split('\n'), path: [] });
  }
  const r = resp();
  if (r) {
    const redit = responseEdit(rt, ep, t, t);
    const msg = r.choices?.[0]?.message;
    responseNodes.push({ name: 'content', root: resp, path: [...choice, 'message', 'content'], edit: redit });
    if (msg?.tool_calls) responseNodes.push({ name: 'tool_calls', root: resp, path: [...choice, 'message', 'tool_calls'], edit: redit });
    responseNodes.push({ name: 'finish_reason', root: resp, path: [...choice, 'finish_reason'] });
    if (r.usage) responseNodes.push({ name: 'usage', root: resp, path: ['usage'] });
    const lp = r.choices?.[0]?.logprobs?.content;
    if (lp?.length) responseNodes.push({ name: 'logprobs', root: resp, path: [...choice, 'logprobs', 'content'], preview: logprobSummary(lp) });
    if (r.prompt_token_ids) responseNodes.push({ name: 'prompt_token_ids', root: resp, path: ['prompt_token_ids'] });
    if (r.choices?.[0]?.token_ids) responseNodes.push({ name: 'token_ids', root: resp, path: [...choice, 'token_ids'] });
    const ids = t.response?.choices?.[0]?.token_ids;
    if (ids?.length || lp?.length) {
      const count = t.response?.prompt_token_ids ? `${t.response.prompt_token_ids.length} + ${ids?.length ?? lp?.length}` : String(ids?.length ?? lp?.length);
      responseNodes.push({
        name: 'tokens',
        root: () => count,
        path: [],
        preview: l10n.t('{0} tokens (right-click: Show tokens)', count),
        menuContext: TOKENS_MENU_CONTEXT,
      });
    }
    if (t.latencyMs !== undefined) responseNodes.push({ name: 'latency_ms', root: () => Math.round(t.latencyMs! * 10) / 10, path: [] });
    responseNodes.push({ name: 'raw', root: resp, path: [], preview: t.delivered ? l10n.t('edited reply') : l10n.t('full reply') });
  }
  // Every variable of a reply's scope offers "Show tokens" (VS Code has no context menu on a scope).
  if (t.response) for (const n of responseNodes) n.menuContext = TOKENS_MENU_CONTEXT;
  if (responseNodes.length) scopes.push({ name: l10n.t('Response'), nodes: responseNodes, call: t });
  return scopes;
}

function episodeScope(ep: Episode, l10n: L10n = english): ScopeSpec {
  const tokens = () => ({ prompt: ep.tokens.prompt, completion: ep.tokens.completion, total: ep.tokens.prompt + ep.tokens.completion });
  const timings = () => ({
    wall_ms: (ep.endedAt ?? Date.now()) - ep.startedAt,
    llm_ms: Math.round(ep.llmMs),
    llm_calls: ep.llmCalls,
  });
  return {
    name: l10n.t('Episode'),
    ...(ep.experienceTokens?.length ? { returned: ep } : {}),
    nodes: [
      { name: 'id', root: () => ep.id, path: [] },
      { name: 'task', root: () => ep.task, path: [] },
      { name: 'status', root: () => ep.status, path: [] },
      { name: 'reward', root: () => ep.reward, path: [] },
      ...(ep.success !== undefined && ep.success !== null ? [{ name: 'success', root: () => ep.success, path: [] }] : []),
      { name: 'metrics', root: () => ep.metrics, path: [] },
      { name: 'metadata', root: () => ep.metadata, path: [] },
      ep.experienceTokens?.length
        ? {
            name: 'experiences',
            root: () => ep.experiences,
            path: [],
            preview: l10n.t('{0} experiences with tokens (right-click: Show tokens)', ep.experienceTokens.length),
            menuContext: RETURNED_MENU_CONTEXT,
          }
        : { name: 'experiences', root: () => ep.experiences, path: [] },
      { name: 'tokens', root: tokens, path: [] },
      { name: 'timings', root: timings, path: [] },
      ...(ep.error ? [{ name: 'error', root: () => ({ phase: ep.error!.phase, type: ep.error!.type, message: ep.error!.message }), path: [] }] : []),
    ],
  };
}

const parseMaybe = (s: unknown) => {
  if (typeof s !== 'string') return s;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
};

export function scopesFor(rt: HeldRun, ep: Episode, t: EpisodeTurn, l10n: L10n = english): ScopeSpec[] {
  const scopes: ScopeSpec[] = [];
  if (t.kind === 'llm') scopes.push(...llmScopes(rt, ep, t, l10n));
  if (t.kind === 'tool') {
    const llm = ep.turns.find((x): x is LlmTurn => x.kind === 'llm' && x.index === t.llmIndex && x.role === t.role);
    const call = ['choices', 0, 'message', 'tool_calls', t.callIndex, 'function'];
    const edit = llm ? responseEdit(rt, ep, llm, t) : undefined;
    const resp = () => (llm ? deliveredOf(llm) : undefined);
    scopes.push({
      name: l10n.t('Tool call'),
      presentationHint: 'arguments',
      nodes: [
        { name: 'name', root: resp, path: [...call, 'name'], edit },
        { name: 'arguments', root: resp, path: [...call, 'arguments'], edit },
        { name: 'parsed arguments', root: () => parseMaybe(t.arguments), path: [] },
        { name: 'id', root: () => t.id, path: [] },
        { name: 'result', root: () => (t.result === undefined ? l10n.t('(not sent back yet)') : parseMaybe(t.result)), path: [] },
        ...(t.error ? [{ name: 'error', root: () => true, path: [] }] : []),
      ],
    });
  }
  if (t.kind === 'exception') {
    scopes.push({
      name: l10n.t('Exception'),
      nodes: [
        { name: 'type', root: () => t.error.type, path: [] },
        { name: 'message', root: () => t.error.message, path: [] },
        { name: 'phase', root: () => t.error.phase, path: [] },
        { name: 'traceback', root: () => t.error.traceback.map((f) => `${f.name ?? '?'} (${f.path}:${f.line})`), path: [] },
      ],
    });
  }
  scopes.push(episodeScope(ep, l10n));
  return scopes;
}

/** A replayed training experience, as recorded (shown next to the Episode scope of a `rollout` launch). */
export function recordedScope(x: RecordedExperience, l10n: L10n = english): ScopeSpec {
  return {
    name: l10n.t('Recorded experience'),
    nodes: [
      { name: 'id', root: () => x.id, path: [] },
      { name: 'reward', root: () => x.reward, path: [] },
      { name: 'parts', root: () => x.parts, path: [] },
      { name: 'model_version', root: () => x.modelVersion, path: [] },
      { name: 'task_index', root: () => x.taskIndex, path: [] },
      ...(x.tasksetId !== null ? [{ name: 'taskset_id', root: () => x.tasksetId, path: [] }] : []),
      ...(x.run !== null ? [{ name: 'run', root: () => x.run, path: [] }] : []),
      ...(x.messages ? [{ name: 'messages', root: () => x.messages, path: [] }] : []),
      ...(x.promptText !== undefined ? [{ name: 'prompt_text', root: () => x.promptText, path: [] }] : []),
      ...(x.responseText !== undefined ? [{ name: 'response_text', root: () => x.responseText, path: [] }] : []),
    ],
  };
}

/** The object Debug Console expressions are evaluated against, for a frame. */
export function evaluationRoot(ep: Episode, t: EpisodeTurn | undefined): Record<string, unknown> {
  const root: Record<string, unknown> = {
    episode: ep.id,
    task: ep.task,
    reward: ep.reward,
    metrics: ep.metrics,
    metadata: ep.metadata,
    turns: ep.turns.length,
  };
  const llm =
    t?.kind === 'llm'
      ? t
      : t?.kind === 'tool'
        ? ep.turns.find((x): x is LlmTurn => x.kind === 'llm' && x.index === t.llmIndex && x.role === t.role)
        : undefined;
  if (llm) {
    const req = llm.sent ?? llm.request;
    const resp = deliveredOf(llm);
    Object.assign(root, { request: req, messages: req.messages, tools: req.tools, response: resp, usage: resp?.usage });
    const msg = resp?.choices?.[0]?.message;
    if (msg) Object.assign(root, { content: msg.content, tool_calls: msg.tool_calls });
  }
  if (t?.kind === 'tool') Object.assign(root, { tool: { name: t.name, arguments: parseMaybe(t.arguments), result: parseMaybe(t.result), id: t.id } });
  if (t?.kind === 'exception') Object.assign(root, { exception: t.error });
  return root;
}
