// The wire protocol between the online-training playground webview and the extension host
// (imported by both ends). The webview says `ready` first; the host answers with the whole
// `state` and then sends `state` after every change plus `delta`s while a reply streams.
// The webview never talks to the network: every HTTP call happens in the host.

export const ONLINE_VIEW_TYPE = 'agentrl.online.playground';

export interface Alternative {
  /** the completion id: the msg_id /feedback takes */
  msgId: string;
  content: string;
  toolCalls?: { name: string; arguments: string }[];
  latencyMs: number;
  promptTokens?: number;
  completionTokens?: number;
  /** the serving model version the explorer reported at the time */
  modelVersion?: number;
}

export type Turn =
  | { kind: 'user'; content: string }
  | {
      kind: 'assistant';
      /** shared by all alternatives of this prompt, so GRPO groups them */
      taskId: string;
      alternatives: Alternative[];
      /** the A/B choice, when one was made */
      chosen?: number;
      /** a failed request's message (no alternative then) */
      error?: string;
    };

export interface Conversation {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  explorerUrl: string;
  model: string;
  turns: Turn[];
}

export interface SamplingParams {
  /** alternatives per prompt (each its own request, so each has its own msg_id) */
  n: number;
  maxTokens: number;
  topP?: number;
  temperature?: number;
  stream: boolean;
}

export interface FeedbackView {
  id: string;
  msgIds: string[];
  reward: number;
  state: 'pending' | 'sent' | 'failed';
  error?: string;
}

export interface MetricsView {
  totalExperiences: number;
  readyExperiences: number;
  exploreStep: number;
  engines: { index: number; requests: number; modelVersion: number }[];
  at: number;
}

export interface PlaygroundState {
  strings: Record<string, string>;
  explorerUrl?: string;
  models: string[];
  model?: string;
  /** false for an explorer older than 0.4 (no /feedback, /commit) */
  canReward: boolean;
  conversation: Conversation;
  conversations: { id: string; title: string; updatedAt: number }[];
  feedback: FeedbackView[];
  metrics?: MetricsView;
  toolCount: number;
  busy: boolean;
  /** the last error, already localized */
  error?: string;
  /** the last notice (commit done…), localized */
  notice?: string;
  params: SamplingParams;
}

export type HostToWebview =
  | { type: 'state'; state: PlaygroundState }
  | { type: 'delta'; turn: number; alt: number; text: string };

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'send'; text: string; params: SamplingParams }
  | { type: 'regenerate'; turn: number }
  | { type: 'reward'; turn: number; alt?: number; reward: number; source: 'thumb' | 'score' }
  | { type: 'choose'; turn: number; alt: number }
  | { type: 'retry'; feedbackId?: string }
  | { type: 'commit' }
  | { type: 'refreshMetrics' }
  | { type: 'newConversation' }
  | { type: 'openConversation'; id: string }
  | { type: 'pickTools' }
  | { type: 'selectModel'; model: string }
  | { type: 'connect' };

const TYPES = new Set(['ready', 'send', 'regenerate', 'reward', 'choose', 'retry', 'commit', 'refreshMetrics', 'newConversation', 'openConversation', 'pickTools', 'selectModel', 'connect']);

/** The host trusts nothing from the webview: unknown shapes are dropped. */
export function parseWebviewMessage(m: unknown): WebviewToHost | undefined {
  if (!m || typeof m !== 'object' || !TYPES.has((m as { type?: string }).type ?? '')) return undefined;
  const x = m as Record<string, unknown>;
  const int = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  switch (x.type) {
    case 'send':
      return typeof x.text === 'string' && x.params && typeof x.params === 'object' ? (x as unknown as WebviewToHost) : undefined;
    case 'regenerate':
      return int(x.turn) ? (x as unknown as WebviewToHost) : undefined;
    case 'reward':
      return int(x.turn) && (x.alt === undefined || int(x.alt)) && typeof x.reward === 'number' && Number.isFinite(x.reward) ? (x as unknown as WebviewToHost) : undefined;
    case 'choose':
      return int(x.turn) && int(x.alt) ? (x as unknown as WebviewToHost) : undefined;
    case 'openConversation':
      return typeof x.id === 'string' ? (x as unknown as WebviewToHost) : undefined;
    case 'selectModel':
      return typeof x.model === 'string' ? (x as unknown as WebviewToHost) : undefined;
    default:
      return x as unknown as WebviewToHost;
  }
}

/**
 * After each /commit the online feature runs this command, when some feature registers it, so
 * the metrics view of the same run can mark the commit on its charts (x = the explore step).
 * Features never import each other: this name and payload are the whole contract.
 */
export const MARK_RUN_EVENT_COMMAND = 'agentrl.metrics.markEvent';

/** The metrics view answers with the serve-mode explorers its relays poll (their URL files). */
export const RELAY_EXPLORERS_COMMAND = 'agentrl.metrics.explorers';
export interface RelayExplorer {
  url: string;
  run: string;
  /** the metrics connection (relay) that found it */
  endpoint: string;
}

export interface RunEventMark {
  kind: 'online-commit';
  /** the explorer's URL (which run) */
  explorerUrl: string;
  /** explore_step_num after the commit: the step the monitor logs this commit at */
  step: number;
  /** wall time, ms since the epoch */
  at: number;
}
