// The wire protocol between the online-training playground webview and the extension
// (imported by both ends). The webview says `ready` first; the extension answers with the whole
// `state` and then sends `state` after every change plus `delta`s while a reply streams.
// The webview never talks to the network: every HTTP call happens in the extension. What the extension
// receives is checked with the guards of ./validate before it acts on it.
import { hasFields, isBool, isInt, isNum, isObj, isStr, oneOf, optional } from '../../base/validate';
import type { ExperienceWire } from '../../tokens/experience-wire';
import type { TokenViewStrings } from '../../tokens/view-strings';

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
  | { type: 'delta'; turn: number; alt: number; text: string }
  /** One reply as tokens, for the token view ("Tokens" on a reply). */
  | { type: 'tokens'; turn: number; alt: number; experience: ExperienceWire; notes: string[]; strings: TokenViewStrings };

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'send'; text: string; params: SamplingParams }
  | { type: 'regenerate'; turn: number }
  | { type: 'reward'; turn: number; alt?: number; reward: number; source: 'thumb' | 'score' }
  | { type: 'choose'; turn: number; alt: number }
  | { type: 'tokens'; turn: number; alt: number }
  | { type: 'retry'; feedbackId?: string }
  | { type: 'commit' }
  | { type: 'refreshMetrics' }
  | { type: 'newConversation' }
  | { type: 'openConversation'; id: string }
  | { type: 'pickTools' }
  | { type: 'selectModel'; model: string }
  | { type: 'connect' };

/** Messages that carry nothing but their type. */
const BARE_TYPES = ['ready', 'commit', 'refreshMetrics', 'newConversation', 'pickTools', 'connect'] as const;

/** A turn or alternative index. */
const isIndex = (v: unknown): v is number => isInt(v) && v >= 0;
/** Any number, even NaN from an empty field: the controller clamps sampling params itself. */
const isNumber = (v: unknown): v is number => typeof v === 'number';
const isSamplingParams = (v: unknown): v is SamplingParams =>
  hasFields(v, { n: isNumber, maxTokens: isNumber, stream: isBool, topP: optional(isNumber), temperature: optional(isNumber) });

/** The extension trusts nothing from the webview: unknown shapes are dropped. */
export function parseWebviewMessage(m: unknown): WebviewToHost | undefined {
  if (!isObj(m) || !isStr(m.type)) return undefined;
  switch (m.type) {
    case 'send':
      return hasFields(m, { type: oneOf(['send']), text: isStr, params: isSamplingParams }) ? m : undefined;
    case 'regenerate':
      return hasFields(m, { type: oneOf(['regenerate']), turn: isIndex }) ? m : undefined;
    case 'reward':
      return hasFields(m, { type: oneOf(['reward']), turn: isIndex, alt: optional(isIndex), reward: isNum, source: oneOf(['thumb', 'score']) }) ? m : undefined;
    case 'choose':
      return hasFields(m, { type: oneOf(['choose']), turn: isIndex, alt: isIndex }) ? m : undefined;
    case 'tokens':
      return hasFields(m, { type: oneOf(['tokens']), turn: isIndex, alt: isIndex }) ? m : undefined;
    case 'retry':
      return hasFields(m, { type: oneOf(['retry']), feedbackId: optional(isStr) }) ? m : undefined;
    case 'openConversation':
      return hasFields(m, { type: oneOf(['openConversation']), id: isStr }) ? m : undefined;
    case 'selectModel':
      return hasFields(m, { type: oneOf(['selectModel']), model: isStr }) ? m : undefined;
    default:
      return hasFields(m, { type: oneOf(BARE_TYPES) }) ? m : undefined;
  }
}
