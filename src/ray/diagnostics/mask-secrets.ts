// Secrets out of a report that will be pasted into a public issue: in a config, every value under
// a key that names a secret (api_key, token, password, …, also inside env_vars) becomes `***`,
// comments and layout kept; in free text (logs, stacks), strings shaped like well-known keys are
// masked, and so is every secret value the config held wherever else it appears.
import { isAlias, isCollection, isPair, isScalar, parseDocument, visit, type Node, type Scalar } from 'yaml';

export const MASK = '***';

/** Keys whose values are secrets: `api_key`, `OPENAI_API_KEY`, `hf_token`, `password`, `secret_key`, … */
const SECRET_KEY =
  /(api[_-]?key|apikey|token|secret|passw(or)?d|passwd|pwd|credential|private[_-]?key|access[_-]?key|authorization|auth[_-]?key|bearer|cookie|dsn|(^|[_.-])auth($|[_.-]))/i;
/** Secret keys whose numeric values are secrets too (a PIN, a numeric password), unlike token counts. */
const NUMERIC_SECRET_KEY = /(passw(or)?d|passwd|pwd|secret|api[_-]?key|apikey|pin)$/i;
/** Keys that contain a secret word but hold no secret (token counts and lengths). */
const NOT_SECRET_KEY = /(max|min|num|n)_?(new_)?tokens?\b|tokens?_(len|length|count|num|limit|budget|id|ids|per)(?![a-z])|^(max|min)_?\w*tokens|tokenizer/i;
/** An environment reference (`${OPENAI_API_KEY}`, `$HF_TOKEN`) names a secret but is none. */
const ENV_REF = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;

export const isSecretKey = (key: string): boolean => SECRET_KEY.test(key) && !NOT_SECRET_KEY.test(key);

/** Strings only: numbers under such keys are counts and lengths (`ppo_max_token_len_per_gpu: 16384`). */
const maskable = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && !ENV_REF.test(v.trim());
const maskableUnder = (key: string, v: unknown): boolean => maskable(v) || (typeof v === 'number' && NUMERIC_SECRET_KEY.test(key));

export interface MaskedConfig {
  text: string;
  /** The secret values found (to mask them in the rest of the report too). */
  secrets: string[];
}

/** Masks the config's secrets. YAML it cannot parse is masked line by line (`key: value`). */
export function maskConfigSecrets(text: string): MaskedConfig {
  const secrets: string[] = [];
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length) return maskLines(text);
  let changed = false;
  const hide = (node: Scalar, key: string): void => {
    if (!maskableUnder(key, node.value)) return;
    secrets.push(...withParts(String(node.value)));
    node.value = MASK;
    changed = true;
  };
  /** Every scalar value below `node` (a map, a block list, a list of maps), aliases followed. */
  const hideAll = (node: unknown, key: string, depth = 0): void => {
    if (depth > 32) return;
    if (isAlias(node)) return hideAll(node.resolve(doc), key, depth + 1);
    if (isScalar(node)) return hide(node, key);
    if (isCollection(node)) {
      for (const item of node.items) {
        if (isPair(item)) hideAll(item.value, key, depth + 1);
        else hideAll(item, key, depth + 1);
      }
    }
  };
  visit(doc, {
    Pair(_key, pair) {
      if (!isPair(pair) || !isScalar(pair.key)) return undefined;
      const key = String(pair.key.value);
      if (isSecretKey(key)) hideAll(pair.value, key);
      return undefined;
    },
    Map(_key, map) {
      // Kubernetes-style `- name: OPENAI_API_KEY` / `value: sk-…` env lists.
      const name = map.get('name');
      const value = map.get('value', true) as Node | undefined;
      if (typeof name === 'string' && isSecretKey(name) && value !== undefined) hideAll(value, name);
      return undefined;
    },
  });
  // Secrets found by their shape (a URL's password, JSON in a value) are masked wherever else they appear too.
  return { text: changed ? doc.toString() : text, secrets: [...new Set([...secrets, ...shapeSecrets(text)])] };
}

/** A secret value and its parts (`Bearer X`, `user:X`, `sid=X`): a part may be reused alone elsewhere. */
function withParts(value: string): string[] {
  return [value, ...value.split(/[\s:=;,@/]+/).filter((p) => p.length >= 6 && p !== value)];
}

/** The values the shapes below would mask in `text`. */
function shapeSecrets(text: string): string[] {
  const found: string[] = [];
  for (const [re, to] of SHAPES) {
    text.replace(re, (...m: unknown[]) => {
      const whole = m[0] as string;
      const masked = typeof to === 'string' ? whole.replace(new RegExp(re.source, re.flags.replace('g', '')), to) : to(...(m as string[]));
      // What the shape took out: the text between the common start and the common end.
      let a = 0;
      while (a < whole.length && whole[a] === masked[a]) a++;
      let b = 0;
      while (b < whole.length - a && whole[whole.length - 1 - b] === masked[masked.length - 1 - b]) b++;
      const secret = whole.slice(a, whole.length - b);
      if (secret.length >= 4) found.push(secret);
      return whole;
    });
  }
  return found;
}

const LINE = /^(\s*-?\s*["']?([\w.-]+)["']?\s*[:=]\s*)(["']?)([^\s#"'][^#"']*?)\3(\s*(#.*)?)$/;

function maskLines(text: string): MaskedConfig {
  const secrets: string[] = [];
  const lines = text.split('\n').map((l) => {
    const m = l.match(LINE);
    if (!m || !isSecretKey(m[2]) || ENV_REF.test(m[4].trim())) return l;
    secrets.push(m[4].trim());
    return `${m[1]}${m[3]}${MASK}${m[3]}${m[5]}`;
  });
  return { text: lines.join('\n'), secrets };
}

const KEY_WORD = String.raw`[\w.-]*(?:api[_-]?key|apikey|token|secret|passw(?:or)?d|pwd|credential|private[_-]?key|access[_-]?key|auth|bearer|cookie|dsn)[\w.-]*`;
/** A secret-keyed value in text: masked unless the key is a count (`max_tokens=512`) or the value an env reference. */
const keyed = (key: string, value: string): boolean => isSecretKey(key) && !ENV_REF.test(value) && (!/^[\d.]+$/.test(value) || NUMERIC_SECRET_KEY.test(key));

/** Shapes of well-known credentials (OpenAI/DashScope `sk-…`, Hugging Face, GitHub, AWS, bearer tokens, `key=value`). */
const SHAPES: Array<[RegExp, string | ((...m: string[]) => string)]> = [
  [/\bsk-[A-Za-z0-9_-]{12,}/g, `sk-${MASK}`],
  [/\bhf_[A-Za-z0-9]{16,}/g, `hf_${MASK}`],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, MASK],
  [/\bAKIA[0-9A-Z]{16}\b/g, MASK],
  // `scheme://user:password@host` (a base_url, a postgresql:// buffer path, a git remote in a log).
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/:@'"]*):([^\s/@'"]+)@/gi, `$1$2:${MASK}@`],
  // An Authorization header in any scheme (Bearer, Basic, token, Digest…) or none, and cookies.
  [
    /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(bearer|basic|token|digest|apikey)\s+)?[^\s"',;]+/gi,
    (_m, head: string, scheme?: string) => `${head}${scheme ? `${scheme} ` : ''}${MASK}`,
  ],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${MASK}`],
  [/\b((?:set-)?cookie["']?\s*:\s*)[^\n]+/gi, `$1${MASK}`],
  // `"api_key": "…"` / `'password': 123` (JSON or a Python dict inside a YAML value or a log line).
  [
    new RegExp(String.raw`(["'])(${KEY_WORD})\1(\s*:\s*)(["']?)([^"'\s,}\]]+)\4`, 'gi'),
    (m, q: string, key: string, sep: string, vq: string, value: string) => (keyed(key, value) ? `${q}${key}${q}${sep}${vq}${MASK}${vq}` : m),
  ],
  // Kubernetes-style `{"name": "OPENAI_API_KEY", "value": "…"}` in JSON text.
  [
    /(["']?name["']?\s*:\s*["']?)([\w.-]+)(["']?\s*,\s*["']?value["']?\s*:\s*["']?)([^"'\s,}]+)/gi,
    (m, a: string, key: string, b: string, value: string) => (keyed(key, value) ? `${a}${key}${b}${MASK}` : m),
  ],
  // `--api-key VALUE`, `--password=VALUE` on a command line (a job's entrypoint).
  [
    new RegExp(String.raw`(--?)(${KEY_WORD})(=|\s+)(["']?)([^\s"']+)\4`, 'gi'),
    (m, dash: string, key: string, sep: string, q: string, value: string) =>
      keyed(key, value) && !value.startsWith('-') ? `${dash}${key}${sep}${q}${MASK}${q}` : m,
  ],
  // `key=value` / `key: value` in free text.
  [
    new RegExp(String.raw`\b(${KEY_WORD})(\s*[=:]\s*)(["']?)(?!\$\{)([^\s"',;}]+)\3`, 'gi'),
    (m, key: string, sep: string, q: string, value: string) =>
      keyed(key, value) && (value.length >= 6 || NUMERIC_SECRET_KEY.test(key)) && value !== MASK ? `${key}${sep}${q}${MASK}${q}` : m,
  ],
];

/** Masks credential-shaped strings and the given secret values in free text. */
export function maskSecretsInText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  secrets = [...secrets, ...shapeSecrets(text)];
  // longest first: a secret that contains another is masked whole
  for (const s of [...new Set(secrets)].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  for (const [re, to] of SHAPES) out = typeof to === 'string' ? out.replace(re, to) : out.replace(re, to);
  return out;
}
