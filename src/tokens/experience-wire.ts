// A TokenExperience as plain JSON (lists instead of typed arrays, null for NaN) for the channels
// that carry JSON: a Debug Adapter Protocol response, a webview's postMessage. The relay's binary
// frames carry the typed arrays themselves; this is for calls and replies of a few thousand tokens.
import type { MissingPart, TokenExperience, TokenSource } from './experience';

export interface ExperienceWire {
  ids: number[];
  promptLength: number;
  /** null where absent (NaN in the model). */
  logprobs?: (number | null)[];
  trained: number[];
  advantages?: (number | null)[];
  truncateStatus: string | null;
  truncated: boolean;
  responseText?: string;
  texts?: { joined: string; offsets: number[]; flags: number[]; partialBytes: Record<number, string> };
  source: TokenSource;
  missing: MissingPart[];
}

const floats = (a: Float32Array): (number | null)[] => Array.from(a, (x) => (Number.isNaN(x) ? null : x));
const unfloats = (a: (number | null)[]): Float32Array => Float32Array.from(a, (x) => (typeof x === 'number' ? x : NaN));

export function toWire(e: TokenExperience): ExperienceWire {
  return {
    ids: Array.from(e.ids),
    promptLength: e.promptLength,
    ...(e.logprobs ? { logprobs: floats(e.logprobs) } : {}),
    trained: Array.from(e.trained),
    ...(e.advantages ? { advantages: floats(e.advantages) } : {}),
    truncateStatus: e.truncateStatus,
    truncated: e.truncated,
    ...(e.responseText !== undefined ? { responseText: e.responseText } : {}),
    ...(e.texts
      ? { texts: { joined: e.texts.joined, offsets: Array.from(e.texts.offsets), flags: Array.from(e.texts.flags), partialBytes: e.texts.partialBytes } }
      : {}),
    source: e.source,
    missing: e.missing,
  };
}

/** Back to the model; lengths that do not agree with the ids are dropped, never trusted. */
export function fromWire(w: ExperienceWire): TokenExperience {
  const n = w.ids.length;
  const sized = <T>(a: T[] | undefined): T[] | undefined => (a && a.length === n ? a : undefined);
  const t = w.texts;
  const texts =
    t && t.offsets.length === n + 1 && t.flags.length === n && t.offsets[n] === t.joined.length
      ? { joined: t.joined, offsets: Uint32Array.from(t.offsets), flags: Uint8Array.from(t.flags), partialBytes: t.partialBytes }
      : undefined;
  const logprobs = sized(w.logprobs);
  const advantages = sized(w.advantages);
  const trained = sized(w.trained);
  return {
    ids: Int32Array.from(w.ids),
    promptLength: Math.max(0, Math.min(n, w.promptLength)),
    ...(logprobs ? { logprobs: unfloats(logprobs) } : {}),
    trained: trained ? Uint8Array.from(trained) : new Uint8Array(n),
    ...(advantages ? { advantages: unfloats(advantages) } : {}),
    truncateStatus: w.truncateStatus,
    truncated: w.truncated,
    ...(w.responseText !== undefined ? { responseText: w.responseText } : {}),
    ...(texts ? { texts } : {}),
    source: w.source,
    missing: w.missing,
  };
}
