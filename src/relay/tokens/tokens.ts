// `agentrl tokens`: one experience's tokens in a terminal — from a job directory (read here by an
// in-process relay on loopback, the same code that serves the editor) or from a running relay's
// URL. Prints a table (id, text, logprob, trained, advantage) or, with --json, the model
// scripts and CI read (src/tokens/token-json.ts). Token texts come from the tokenizer of
// --model (a model folder, or a Hugging Face id found in the local cache); without one, ids.
import { parseArgs } from 'node:util';
import { RelayClient } from '../../relay-protocol/client';
import type { SourceInfo } from '../../relay-protocol/messages';
import type { TokenizerOrReason } from '../../tokens/build';
import { type TokenExperience, summarize } from '../../tokens/experience';
import { ReplyError, experienceOfReply } from '../../tokens/relay-reply';
import { toTokensJson } from '../../tokens/token-json';
import { tokenizerFor } from '../../tokens/tokenizer-files';
import { visibleToken } from '../../tokens/visible';
import { inProcessRelay, onRefusal, pickExperienceSource, runTarget } from '../run-target';

export const TOKENS_USAGE = `Usage: agentrl tokens (--job-dir DIR | <url>) --id N [options]

Prints the tokens of one experience: its ids, texts, logprobs, action mask and advantages
(an SQL buffer row's own tensors), or the re-tokenized texts of a file-buffer / queue-backup line.

Options:
  --job-dir DIR       a Trinity job directory (read here, nothing is started elsewhere)
  <url>               a running 'agentrl relay' (ws:// or wss://)
  --id N              the row id (SQL: its id; JSON lines: as the rollout list shows it)
  --source ID         the source (default: the SQL experience buffer, else the first JSON-lines one)
  --model PATH|ID     the tokenizer: a model folder, or a Hugging Face id in the local cache
  --json              print {"prompt_length", "truncated", "tokens": [{"id", "text", "logprob",
                      "trained", "advantage"}], "source", "missing"} (absent values null;
                      an infinite logprob or advantage the string "-Infinity" or "Infinity")
  --token-file FILE   bearer token for <url> (or env AGENTRL_RELAY_TOKEN)
  --ca FILE           CA certificate (PEM) for a wss:// relay with its own certificate

Exit codes: 0 printed, 1 not found or not readable (no such row, relay unreachable, bad row),
2 bad usage.
`;

const WAIT_MS = 15_000;

function usageError(msg: string): number {
  process.stderr.write(`agentrl tokens: ${msg}\n\n${TOKENS_USAGE}`);
  return 2;
}

function failure(msg: string): number {
  process.stderr.write(`agentrl tokens: ${msg}\n`);
  return 1;
}

const fmt = (v: number | undefined, digits = 3) =>
  v === Infinity ? 'inf' : v === -Infinity ? '-inf' : v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits);

/** The table a terminal shows: a summary line, then a token a line. */
export function tokenTable(e: TokenExperience, title: string): string {
  const s = summarize(e);
  const head = [
    `${title} · ${s.tokens} tokens (${s.promptTokens} prompt, ${s.responseTokens} response, ${s.trainedTokens} trained)`,
    `mean logprob ${fmt(s.meanLogprob)}`,
    Number.isFinite(s.meanAdvantage) ? `mean advantage ${fmt(s.meanAdvantage)}` : '',
    s.truncated ? `truncated (${e.truncateStatus ?? 'yes'})` : '',
    s.emptyResponse ? 'empty response' : '',
  ].filter(Boolean);
  const notes = [
    `source: ${e.source.kind === 'retokenized' ? `re-tokenized from the stored ${e.source.from}` : e.source.kind}`,
    ...e.missing.map((m) => `no ${m.part}: ${m.reason}${m.detail ? ` (${m.detail})` : ''}`),
  ];
  const lines = [head.join(' · '), ...notes, `${'#'.padStart(6)}  ${'id'.padStart(8)}  T  ${'logprob'.padStart(9)}  ${'adv'.padStart(7)}  text`];
  for (let i = 0; i < e.ids.length; i++) {
    if (i === e.promptLength) lines.push('-'.repeat(48));
    const text = e.texts ? visibleToken(e.texts, e.ids, i) : '';
    lines.push(
      `${String(i).padStart(6)}  ${String(e.ids[i]).padStart(8)}  ${e.trained[i] ? '■' : '·'}  ${fmt(e.logprobs?.[i]).padStart(9)}  ${fmt(e.advantages?.[i]).padStart(7)}  ${text}`,
    );
  }
  return lines.join('\n') + '\n';
}

export async function main(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        'job-dir': { type: 'string' },
        id: { type: 'string' },
        source: { type: 'string' },
        model: { type: 'string' },
        json: { type: 'boolean', default: false },
        'token-file': { type: 'string' },
        ca: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(TOKENS_USAGE);
    return 0;
  }
  const where = runTarget(values, positionals);
  if ('usage' in where) return usageError(where.usage);
  // Decimal digits only: Number() would take '0x10' as 16 and '1e3' as 1000.
  const id = values.id !== undefined && /^[0-9]+$/.test(values.id) ? Number(values.id) : NaN;
  if (values.id === undefined || !Number.isSafeInteger(id) || id < 1)
    return usageError(`--id must be a positive integer row id${values.id === undefined ? '' : `, got '${values.id}'`}`);
  if ('failure' in where) return failure(where.failure);
  const tk: TokenizerOrReason = values.model !== undefined ? tokenizerFor(values.model) : { reason: 'no --model given' };
  if (values.model !== undefined && 'reason' in tk) process.stderr.write(`agentrl tokens: no tokenizer: ${tk.reason}\n`);

  const relay = where.jobDir !== undefined ? inProcessRelay(where.jobDir) : undefined;
  let client: RelayClient | undefined;
  try {
    const target = relay ? await relay.start() : where.url!;
    client = new RelayClient({ url: target, token: where.token, ca: where.ca, experiences: false, backoff: { initialMs: 100, maxMs: 1000 } });
    const c = client;
    const source = await new Promise<SourceInfo | string>((resolve) => {
      const timer = setTimeout(() => resolve(`the relay at ${target} did not answer within ${WAIT_MS / 1000} s`), WAIT_MS);
      onRefusal(c, target, (why) => {
        clearTimeout(timer);
        resolve(why);
      });
      c.on('hello', (h) => {
        clearTimeout(timer);
        const s = pickExperienceSource(h.sources, values.source);
        resolve(
          s ??
            (values.source !== undefined
              ? `no source '${values.source}' (${h.sources.map((x) => x.id).join(', ') || 'none'})`
              : 'no experience buffer (SQL or JSON lines) there'),
        );
      });
      c.start();
    });
    if (typeof source === 'string') return failure(source);
    await waitOpen(c);
    const reply = await c.requestTokens(source.id, id);
    const e = experienceOfReply(reply, tk);
    const title = `${source.role} #${id}`;
    process.stdout.write(values.json ? `${JSON.stringify(toTokensJson(e))}\n` : tokenTable(e, title));
    return 0;
  } catch (e) {
    return failure(e instanceof ReplyError ? `this row keeps only texts, which need a tokenizer to re-tokenize (--model): ${e.message}` : (e as Error).message);
  } finally {
    await client?.close();
    await relay?.close();
  }
}

/** Resolves once the client has subscribed (hello answered), when it may ask. */
function waitOpen(c: RelayClient): Promise<void> {
  if (c.state === 'open') return Promise.resolve();
  return new Promise((resolve) => {
    const on = () => {
      if (c.state !== 'open') return;
      c.off('state', on);
      resolve();
    };
    c.on('state', on);
  });
}
