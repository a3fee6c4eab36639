// Who may open a relay WebSocket. Checked on the HTTP upgrade, before any WebSocket exists:
// the token travels only in the `Authorization: Bearer` header (a token-like query parameter
// is refused so it cannot end up in proxy or shell history), is compared in constant time and
// is never logged; browsers are kept out by the Origin check.
import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface AuthPolicy {
  /** Required bearer token; undefined = no auth (only allowed on loopback). */
  token: string | undefined;
  /** Origins allowed to connect. Requests without Origin (non-browser clients) always pass. */
  allowOrigins: string[];
}

export type AuthResult = { ok: true } | { ok: false; status: number; reason: string };

const TOKEN_PARAMS = /(^|[?&])(token|access_token|auth|authorization|key|api_key|apikey|password)=/i;

/** Constant-time equality of two secrets (both hashed first, so lengths do not leak). */
export function secretEquals(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a, 'utf8').digest();
  const hb = crypto.createHash('sha256').update(b, 'utf8').digest();
  return crypto.timingSafeEqual(ha, hb);
}

export function checkUpgrade(req: IncomingMessage, policy: AuthPolicy): AuthResult {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  if (q >= 0 && TOKEN_PARAMS.test(url.slice(q))) {
    return { ok: false, status: 400, reason: 'credentials in the URL are refused: send them in the Authorization header' };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !policy.allowOrigins.includes(origin)) {
    return { ok: false, status: 403, reason: 'origin not allowed' };
  }
  if (policy.token === undefined) return { ok: true };
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  if (!m) return { ok: false, status: 401, reason: 'missing bearer token' };
  if (!secretEquals(m[1], policy.token)) return { ok: false, status: 401, reason: 'invalid token' };
  return { ok: true };
}

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}
