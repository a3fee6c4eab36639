// One LLM call of a debug run as tokens: the prompt and completion ids and logprobs the endpoint
// returned, their texts from the run's tokenizer (or the endpoint's /detokenize), the completion
// marked as what training would learn from. Without ids from the endpoint, the run's tokenizer
// re-tokenizes the call's messages and says so.
import { fromEndpoint, retokenize } from '../../tokens/build';
import type { ChatMessage } from '../../tokens/chat-template';
import type { TokenExperience } from '../../tokens/experience';
import { describeMissing, describeSource, type TokenL10n } from '../../tokens/strings';
import type { ChatCompletion, ChatCompletionRequest } from '../trajectory/trajectory';
import type { TokenizerChoice } from './run-tokenizer';

/** What a call holds: the request sent and the reply as the endpoint gave it. */
export interface CallRecord {
  request: ChatCompletionRequest;
  response?: ChatCompletion;
}

export interface CallTokens {
  experience: TokenExperience;
  /** Where the tokens and their texts come from, and what is missing: one line each. */
  notes: string[];
}

export class NoCallTokens extends Error {}

function tokenizerNote(choice: TokenizerChoice, l10n: TokenL10n): string {
  if (choice.kind === 'local') return l10n.t('Token texts from the tokenizer of {0}', choice.tokenizer.name);
  if (choice.kind === 'endpoint')
    return l10n.t('Token texts from the endpoint ({0}/detokenize): no tokenizer on this machine ({1})', choice.endpoint.label, choice.localReason);
  return l10n.t('No tokenizer: {0}', choice.reason);
}

export async function callTokens(call: CallRecord, choice: TokenizerChoice, l10n: TokenL10n): Promise<CallTokens> {
  const resp = call.response;
  const c = resp?.choices?.[0];
  if (!resp || !c) throw new NoCallTokens(l10n.t('This call has no reply to show as tokens.'));
  const notes = [tokenizerNote(choice, l10n)];
  const completionIds = Array.isArray(c.token_ids) ? c.token_ids : undefined;
  const promptIds = Array.isArray(resp.prompt_token_ids) ? resp.prompt_token_ids : undefined;
  const responseText = typeof c.message?.content === 'string' ? c.message.content : undefined;
  let e: TokenExperience;
  if (completionIds && completionIds.every(Number.isInteger)) {
    const lp = c.logprobs?.content?.map((x) => x.logprob);
    e = fromEndpoint(
      {
        promptIds: promptIds ?? [],
        completionIds,
        logprobs: lp && lp.length === completionIds.length ? lp : null,
        finishReason: c.finish_reason,
        responseText,
      },
      choice.kind === 'local' ? { tokenizer: choice.tokenizer } : { reason: choice.kind === 'none' ? choice.reason : choice.localReason },
    );
    if (!promptIds) notes.push(l10n.t('The endpoint returned no prompt token ids: the completion only.'));
    if (choice.kind === 'endpoint') {
      const { texts, exact } = await choice.endpoint.tokenTexts(e.ids);
      e = { ...e, texts, missing: e.missing.filter((m) => m.part !== 'text') };
      if (!exact) notes.push(l10n.t('The endpoint decodes these tokens together differently from one by one: texts are approximate.'));
    }
  } else if (choice.kind === 'local') {
    const messages = [...((call.request.messages ?? []) as ChatMessage[]), c.message as ChatMessage];
    e = retokenize(
      { messages, tools: call.request.tools ?? null, response_text: responseText, truncate_status: c.finish_reason === 'length' ? 'response_truncated' : null },
      choice.tokenizer,
    );
    notes.push(l10n.t('The endpoint returned no token ids: re-tokenized from the messages.'));
  } else {
    throw new NoCallTokens(
      l10n.t(
        'The endpoint returned no token ids for this call, and there is no tokenizer to re-tokenize it: {0}',
        choice.kind === 'none' ? choice.reason : choice.localReason,
      ),
    );
  }
  notes.push(describeSource(e.source, l10n), ...e.missing.map((m) => describeMissing(m, l10n)));
  return { experience: e, notes };
}
