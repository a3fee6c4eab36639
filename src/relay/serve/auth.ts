// Who may open a relay WebSocket. Checked on the HTTP upgrade, before any WebSocket exists:
// the token travels only in the `Authorization: Bearer` header (a URL that looks like it carries
// a credential anywhere — query or path, escaped or not — is refused, so that none ends up in
// proxy or shell history), is compared in constant time and is never logged; browsers are kept
// out by the Origin check. A token is one word of printable ASCII, as an HTTP header carries it.
import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface AuthPolicy {
  /** Required bearer token; undefined = no auth (only allowed on loopback). */
  token: string | undefined;
  /** Origins allowed to connect. Requests without Origin (non-browser clients) always pass. */
  allowOrigins: string[];
}

export type AuthResult = { ok: true } | { ok: false; status: number; reason: string };

/** Words a credential's name contains (token, access_token, api_key, passwd, x-auth, …). */
const CREDENTIAL_NAME = /(token|bearer|auth|key|pass|secret|credential|session|signature|jwt)/;

/** `s` with its percent-escapes decoded until none is left (a double escape hides a name once). */
function unescapeFully(s: string): string {
  for (let i = 0; i < 4; i++) {
    const next = s.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    if (next === s) return s;
    s = next;
  }
  return s;
}

/**
 * Why a relay URL (or a request path with its query) looks like it carries a credential, or
 * undefined. One rule for the whole URL: after unescaping, no `name=` or `name:` whose name
 * contains a credential word, in any query parameter (whatever its separator: `&`, `;`, `,`, `+`,
 * a tab) or path segment (`/token=…`), no `bearer` anywhere, and not the relay's token itself.
 */
export function credentialInUrl(url: string, token?: string): string | undefined {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  if (origin?.[1].includes('@')) return URL_CREDENTIALS; // user:password@host
  const unescaped = unescapeFully(origin ? url.slice(origin[0].length) : url);
  // The token itself, whatever names it (a query value, a path segment).
  if (token && unescaped.includes(token)) return URL_CREDENTIALS;
  const text = unescaped.toLowerCase();
  if (text.includes('bearer')) return URL_CREDENTIALS;
  // Separators: the URL's own, and those clients put between parameters (`,`, `+`, blank space).
  for (const part of text.split(/[/?&;#,+\s]/)) {
    const name = /^\s*([^=:]*)[=:]/.exec(part)?.[1];
    if (name !== undefined && CREDENTIAL_NAME.test(name)) return URL_CREDENTIALS;
  }
  return undefined;
}

const URL_CREDENTIALS = 'credentials in the URL are refused: send them in the Authorization header';

/** Why `token` cannot be a bearer token (empty, several words, a character a header cannot carry), or undefined. */
export function tokenProblem(token: string): string | undefined {
  if (token === '') return 'it is empty';
  if (/\s/.test(token)) return 'it holds more than one word (a token is one word, no spaces or line breaks)';
  if (!/^[\x21-\x7e]+$/.test(token)) return 'it holds characters other than printable ASCII';
  return undefined;
}

/** Constant-time equality of two secrets (both hashed first, so lengths do not leak). */
export function secretEquals(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a, 'utf8').digest();
  const hb = crypto.createHash('sha256').update(b, 'utf8').digest();
  return crypto.timingSafeEqual(ha, hb);
}

export function checkUpgrade(req: IncomingMessage, policy: AuthPolicy): AuthResult {
  const inUrl = credentialInUrl(req.url ?? '/', policy.token);
  if (inUrl) return { ok: false, status: 400, reason: inUrl };
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
