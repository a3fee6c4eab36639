// The secrets a URL may carry (a `user:password@` authority, a credential as a query or fragment
// parameter: `?api_key=…`, `&access_token=…`) and the URL with them masked, for everything that
// is printed, logged or saved. The full URL is only ever used to make the call itself. Works on
// text that is not a valid URL too (an error message may quote what the user typed).

const MASK = '***';

/** A parameter name that holds a credential (api_key, access_token, password, sig, …). */
const SECRET_NAME = /(token|bearer|auth|key|pass|pwd|secret|credential|session|signature|^sig$|jwt|cookie|dsn)/i;

/** `scheme://userinfo@` at the start of a URL (up to its last `@`: a password may hold one). */
const AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)@/i;
/** `name=value` after `?`, `&`, `;` or `#`. */
const PARAM = /([?&;#])([^=&;#\s]*)=([^&;#\s]*)/g;

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `url` with its password (or a user that is a token) and credential parameters as ***. */
export function maskUrl(url: string): string {
  return url
    .replace(AUTHORITY, (_, scheme: string, info: string) => {
      const colon = info.indexOf(':');
      return `${scheme}${colon >= 0 ? `${info.slice(0, colon)}:${MASK}` : MASK}@`;
    })
    .replace(PARAM, (all, sep: string, name: string, value: string) => (value && SECRET_NAME.test(decoded(name)) ? `${sep}${name}=${MASK}` : all));
}

const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi;

/** The secret values the URLs in `text` carry, as written and decoded (to mask them anywhere). */
export function urlSecrets(text: string): string[] {
  const out = new Set<string>();
  for (const [url] of text.matchAll(URL_IN_TEXT)) {
    const auth = AUTHORITY.exec(url)?.[2];
    if (auth) {
      const colon = auth.indexOf(':');
      const secret = colon >= 0 ? auth.slice(colon + 1) : auth;
      if (secret) out.add(secret).add(decoded(secret));
    }
    for (const m of url.matchAll(PARAM)) if (m[3] && SECRET_NAME.test(decoded(m[2]))) out.add(m[3]).add(decoded(m[3]));
  }
  return [...out].filter((s) => s.length > 0);
}

/** `text` with each of `secrets` (and any URL in it) masked. */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // A very short secret is masked inside its URL only: everywhere, it would blank out the text.
  for (const s of [...secrets].filter((x) => x.length >= 3).sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  return out.replace(URL_IN_TEXT, (u) => maskUrl(u));
}
