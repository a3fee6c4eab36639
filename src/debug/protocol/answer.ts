// What a DAP request handler outside the session hands back: a response body, or the error
// the session sends instead. Keeps the handlers free of the session (and testable alone).
export interface DapError {
  id: number;
  format: string;
  showUser: boolean;
}

/** `invalidate`: the answer changed values shown in the Variables view. */
export type Answer<B> = { ok: true; body: B; invalidate?: boolean } | { ok: false; error: DapError };

export const fail = (id: number, format: string, showUser: boolean): { ok: false; error: DapError } => ({ ok: false, error: { id, format, showUser } });
