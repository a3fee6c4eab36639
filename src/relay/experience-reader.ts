// The relay's side of replaying a training run's experiences (feature-api/experience-reader.ts):
// a buffer row by id, or the rows of some model versions with their details, read from a job
// directory (by an in-process relay on loopback, as `agentrl tokens` and `tasks` do) or from a
// running relay's URL (its token from AGENTRL_RELAY_TOKEN), through run-target.ts.
import { RelayClient } from '../relay-protocol/client';
import type { ExperienceRow, SourceInfo } from '../relay-protocol/messages';
import type { ExperienceReader, ReadExperience, RecordedTokens } from '../feature-api/experience-reader';
import { inProcessRelay, onRefusal, pickExperienceSource, runTarget } from './run-target';

const WAIT_MS = 15_000;

interface Open {
  client: RelayClient;
  source: SourceInfo;
  rows: ExperienceRow[];
  close(): Promise<void>;
}

/** Connects to `where` and waits for the buffer's listing (every row when `listing`). */
async function open(where: string, listing: boolean): Promise<Open> {
  const target = /^wss?:\/\//.test(where) ? runTarget({}, [where]) : runTarget({ 'job-dir': where }, []);
  if ('usage' in target) throw new Error(target.usage);
  if ('failure' in target) throw new Error(target.failure);
  const relay = target.jobDir !== undefined ? inProcessRelay(target.jobDir) : undefined;
  let client: RelayClient | undefined;
  const close = async () => {
    await client?.close();
    await relay?.close();
  };
  try {
    const url = relay ? await relay.start() : target.url!;
    // One row's detail is asked for by id: nothing streamed (`runs: []` subscribes to no run),
    // else the relay would read and send every event file's points and the buffer's listing.
    const c = new RelayClient({
      url,
      token: target.token,
      ca: target.ca,
      experiences: listing,
      ...(listing ? {} : { runs: [] }),
      backoff: { initialMs: 100, maxMs: 1000 },
    });
    client = c;
    const rows: ExperienceRow[] = [];
    let source: SourceInfo | undefined;
    const problem = await new Promise<string | undefined>((resolve) => {
      let lastError = '';
      const timer = setTimeout(() => resolve(`the relay at ${url} did not answer within ${WAIT_MS / 1000} s${lastError && ` (${lastError})`}`), WAIT_MS);
      c.on('error', (e) => e.kind === 'connection' && (lastError = e.message));
      onRefusal(c, url, (why) => {
        clearTimeout(timer);
        resolve(why);
      });
      c.on('hello', (h) => {
        source = pickExperienceSource(h.sources, undefined);
        if (!source) {
          clearTimeout(timer);
          resolve(`no experience buffer (SQL or JSON lines) in ${where}`);
        }
      });
      c.on('experiences', (m) => {
        if (m.source !== source?.id) return;
        for (const r of m.rows) {
          const i = r.updated ? rows.findIndex((x) => x.id === r.id) : -1;
          if (i >= 0) rows[i] = r;
          else rows.push(r);
        }
      });
      c.on('state', () => {
        if (!listing && c.state === 'open' && source) {
          clearTimeout(timer);
          resolve(undefined);
        }
      });
      c.on('heartbeat', (h) => {
        timer.refresh();
        if (h.caughtUp && source && (listing || c.state === 'open')) {
          clearTimeout(timer);
          resolve(undefined);
        }
      });
      c.start();
    });
    if (problem !== undefined) throw new Error(problem);
    return { client: c, source: source!, rows, close };
  } catch (e) {
    await close();
    throw e;
  }
}

function asRead(id: number, row: ExperienceRow | undefined, detail: Record<string, unknown>, tokens?: RecordedTokens): ReadExperience {
  return { id: String(id), ...(row ? { row } : {}), detail, ...(tokens ? { tokens } : {}) };
}

/** The detail keeps an assistant turn (messages) or a response_text: the conversation is there. */
function keepsConversation(detail: Record<string, unknown>): boolean {
  if (typeof detail.response_text === 'string') return true;
  let m = detail.messages;
  if (typeof m === 'string') {
    try {
      m = JSON.parse(m);
    } catch {
      return false;
    }
  }
  return Array.isArray(m) && m.some((x) => !!x && typeof x === 'object' && (x as { role?: unknown }).role === 'assistant');
}

/** The detail, and the row's tokens when the detail keeps no conversation (undefined when it has none either). */
async function readRow(o: Open, id: number): Promise<{ detail: Record<string, unknown>; tokens?: RecordedTokens }> {
  const detail = await o.client.requestExperience(o.source.id, id);
  if (keepsConversation(detail)) return { detail };
  try {
    const t = await o.client.requestTokens(o.source.id, id);
    const { tokens: ids, action_mask: actionMask } = t.arrays;
    if (t.kind !== 'tensors' || !ids || !actionMask || t.prompt_length === null) return { detail };
    return { detail, tokens: { ids, actionMask, promptLength: t.prompt_length } };
  } catch {
    return { detail };
  }
}

export function createExperienceReader(): ExperienceReader {
  return {
    async read(where, id) {
      const n = /^[0-9]+$/.test(id) ? Number(id) : NaN;
      if (!Number.isSafeInteger(n) || n < 1)
        throw new Error(`the experience id must be a positive whole number (the row id the metrics view shows), not '${id}'`);
      // The detail alone: listing a whole buffer for one row would read all of it.
      const o = await open(where, false);
      try {
        const r = await readRow(o, n);
        return asRead(n, undefined, r.detail, r.tokens);
      } finally {
        await o.close();
      }
    },
    async rows(where, [from, to]) {
      const o = await open(where, true);
      try {
        const out: (ReadExperience & { error?: string })[] = [];
        for (const r of o.rows) {
          if (r.model_version === null || r.model_version < from || r.model_version > to) continue;
          try {
            const got = await readRow(o, r.id);
            out.push(asRead(r.id, r, got.detail, got.tokens));
          } catch (e) {
            out.push({ ...asRead(r.id, r, {}), error: (e as Error).message });
          }
        }
        return out;
      } finally {
        await o.close();
      }
    },
  };
}
