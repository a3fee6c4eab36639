// The offer at a row replay's divergence stop (the adapter's agentrl.replayDiverged event): go on
// against the live model from the call that diverged, or stay stopped to read the diff.
import * as vscode from 'vscode';
import { GO_LIVE_REQUEST, REPLAY_DIVERGED_EVENT, type ReplayDivergedEvent } from './protocol/replay-live';

function isDiverged(v: unknown): v is ReplayDivergedEvent {
  const o = v as Partial<ReplayDivergedEvent> | undefined;
  return !!o && typeof o.threadId === 'number' && typeof o.episode === 'string' && typeof o.call === 'number';
}

export async function offerLive(e: vscode.DebugSessionCustomEvent): Promise<void> {
  if (e.session.type !== 'agentrl' || e.event !== REPLAY_DIVERGED_EVENT || !isDiverged(e.body)) return;
  const goOn = vscode.l10n.t('Go On Against the Live Model');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('The replay of {0} diverged at LLM call {1}: the workflow asked something the recording does not hold.', e.body.episode, e.body.call),
    goOn,
  );
  if (pick !== goOn) return;
  try {
    await e.session.customRequest(GO_LIVE_REQUEST, { threadId: e.body.threadId });
  } catch (err) {
    void vscode.window.showErrorMessage((err as Error).message);
  }
}
