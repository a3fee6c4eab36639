// The token ids and logprobs a reply carries. Trinity's serve-mode proxy asks its engine for
// them on every chat (`return_token_ids`, `logprobs`: it records experiences from them) and
// passes them through: vLLM puts `prompt_token_ids` on the completion (streamed: on a chunk),
// `token_ids` and `logprobs.content` on the choice (streamed: a piece per chunk).

/** What the endpoint returned of one reply's tokens. */
export interface ReplyTokenIds {
  promptIds: number[];
  completionIds: number[];
  /** One per completion token, when every token had one. */
  logprobs?: number[];
}

const isIds = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x) && x >= 0);

/** Gathers the ids and logprobs of a reply from its body or from its stream's chunks. */
export class ReplyTokenCollector {
  private promptIds: number[] = [];
  private completionIds: number[] = [];
  private logprobs: number[] = [];
  private logprobsComplete = true;

  /** A whole completion or one stream chunk (choice 0 only: one request per alternative). */
  add(body: unknown): void {
    if (typeof body !== 'object' || body === null) return;
    const b = body as { prompt_token_ids?: unknown; choices?: unknown };
    if (isIds(b.prompt_token_ids) && b.prompt_token_ids.length) this.promptIds = b.prompt_token_ids;
    const c = Array.isArray(b.choices) ? (b.choices[0] as { token_ids?: unknown; logprobs?: { content?: unknown } | null } | undefined) : undefined;
    if (!c || typeof c !== 'object') return;
    if (isIds(c.token_ids)) this.completionIds.push(...c.token_ids);
    const content = c.logprobs?.content;
    if (Array.isArray(content)) {
      for (const x of content as { logprob?: unknown }[]) {
        if (typeof x?.logprob === 'number') this.logprobs.push(x.logprob);
        else this.logprobsComplete = false;
      }
    }
  }

  /** The reply's tokens, or undefined when the endpoint returned no completion ids. */
  result(): ReplyTokenIds | undefined {
    if (!this.completionIds.length) return undefined;
    const lp = this.logprobsComplete && this.logprobs.length === this.completionIds.length ? { logprobs: this.logprobs } : {};
    return { promptIds: this.promptIds, completionIds: this.completionIds, ...lp };
  }
}
