// The tokenizer of the model an explorer serves, for "Tokens" on a playground reply: the served
// model's name (a folder, or a hub id in the local Hugging Face cache), else the one the user
// named in agentrl.online.tokenizer. Trinity's proxy forwards no /tokenize, so there is no
// endpoint to ask.
import type { TokenizerOrReason } from '../../tokens/build';
import { tokenizerFor } from '../../tokens/tokenizer-files';

export function servedModelTokenizer(model: string, configured: string, env: NodeJS.ProcessEnv = process.env): TokenizerOrReason {
  const reasons: string[] = [];
  for (const name of [...new Set([model, configured.trim()].filter(Boolean))]) {
    const t = tokenizerFor(name, env);
    if ('tokenizer' in t) return t;
    reasons.push(t.reason);
  }
  return { reason: reasons.join('; ') || 'no model name' };
}
