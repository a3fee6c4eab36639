// Why an explorer call failed, as a kind the UI can explain (dead explorer, 502 / 504 from its
// proxy, our own timeout, an explorer too old for /feedback and /commit). Pure: the adapter turns
// a kind into a localized sentence (describeError in src/online/strings.ts).

export type ExplorerErrorKind =
  /** nothing listens at the URL, DNS failed, connection reset */
  | 'unreachable'
  /** the proxy answered 502: it could not reach its inference engine */
  | 'bad-gateway'
  /** the proxy answered 504: its engine did not answer within synchronizer.sync_timeout */
  | 'gateway-timeout'
  /** we gave up waiting (our own timeout) */
  | 'timeout'
  /** /feedback or /commit is missing: an explorer older than Trinity-RFT 0.4 */
  | 'pre-0.4'
  /** any other HTTP error status */
  | 'http'
  /** the answer was not what the API documents */
  | 'protocol';

export class ExplorerError extends Error {
  constructor(
    readonly kind: ExplorerErrorKind,
    /** the explorer's base URL */
    readonly url: string,
    /** upstream detail (status line, error body message) */
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`${kind}: ${detail}`);
    this.name = 'ExplorerError';
  }
}

/** The message inside Trinity's proxy error bodies ({"error": {"message"}} or {"error": "…"} or {"detail"}). */
function errorBodyMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const e = b.error;
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object' && typeof (e as Record<string, unknown>).message === 'string') {
    return (e as Record<string, string>).message;
  }
  if (typeof b.detail === 'string') return b.detail;
  // the openai SDK hands over the inner `error` object
  if (typeof b.message === 'string') return b.message;
  return undefined;
}

/** An HTTP status (+ body) from the explorer as an ExplorerError. */
export function fromStatus(url: string, status: number, body: unknown, what: string): ExplorerError {
  const msg = errorBodyMessage(body) ?? '';
  // keep the first line: the proxy's 502 body carries a whole Python traceback
  const short = msg.split('\n')[0].slice(0, 300);
  const detail = `${what}: HTTP ${status}${short ? ` ${short}` : ''}`;
  if (status === 502) return new ExplorerError('bad-gateway', url, detail, status);
  if (status === 504) return new ExplorerError('gateway-timeout', url, detail, status);
  return new ExplorerError('http', url, detail, status);
}

/** A thrown network error (fetch / openai SDK) as an ExplorerError. */
export function fromThrown(url: string, e: unknown, what: string): ExplorerError {
  if (e instanceof ExplorerError) return e;
  const err = e as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
    status?: number;
    error?: unknown;
    constructor?: { name?: string };
  };
  const ctor = err?.constructor?.name ?? '';
  if (typeof err?.status === 'number') return fromStatus(url, err.status, err.error ?? { error: err.message }, what);
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError' || ctor === 'APIConnectionTimeoutError' || /timed? ?out/i.test(err?.message ?? '')) {
    return new ExplorerError('timeout', url, `${what}: ${err?.message ?? 'timed out'}`);
  }
  const cause = err?.cause?.code ?? err?.cause?.message ?? '';
  return new ExplorerError('unreachable', url, `${what}: ${err?.message ?? String(e)}${cause ? ` (${cause})` : ''}`);
}
