// Edit = fork, the copy half: what the user edits while stopped is a copy of the pending
// request or of the held reply, so the originals stay recorded beside what was sent or
// delivered (and the turn is marked as edited, which makes its episode a fork).
import type { ChatCompletion, ChatCompletionRequest } from '../trajectory/trajectory';
import { deliveredOf, toolCallsOf, type Episode, type LlmTurn } from './episode';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The pending request, copied on first edit so the original stays recorded. */
export function editableRequest(turn: LlmTurn): ChatCompletionRequest {
  turn.sent ??= clone(turn.request);
  turn.userEdited = true;
  return turn.sent;
}

/** The held reply, copied on first edit so the model's own reply stays recorded. */
export function editableResponse(turn: LlmTurn): ChatCompletion {
  turn.delivered ??= clone(turn.response!);
  turn.userEdited = true;
  return turn.delivered;
}

/** Keeps tool turns in line with an edited reply. */
export function syncToolTurns(ep: Episode, turn: LlmTurn): void {
  const calls = toolCallsOf(deliveredOf(turn));
  for (const t of ep.turns) {
    if (t.kind === 'tool' && t.llmIndex === turn.index && t.role === turn.role && calls[t.callIndex]) {
      t.name = calls[t.callIndex].function.name;
      t.arguments = calls[t.callIndex].function.arguments;
    }
  }
}
