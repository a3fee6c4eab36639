// Between the debug adapter (dap/session.ts) and the extension (go-live.ts): a replay of a
// training run's experience that stopped where it diverged, and the answer that lets it go on
// against the live model from that call.

/** The custom DAP event sent at such a stop, when a live model endpoint is there to go on against. */
export const REPLAY_DIVERGED_EVENT = 'agentrl.replayDiverged';
export interface ReplayDivergedEvent {
  threadId: number;
  episode: string;
  /** The 1-based LLM call that diverged. */
  call: number;
}
/** The custom DAP request {threadId}: that episode goes on against the live model from the call that diverged. */
export const GO_LIVE_REQUEST = 'agentrl.goLive';
