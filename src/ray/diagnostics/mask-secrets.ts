// Secrets out of a report that will be pasted into a public issue: in a config, every value under
// a key that names a secret (api_key, token, password, …, also inside env_vars) becomes `***`,
// comments and layout kept; in free text (logs, stacks), strings shaped like well-known keys are
// masked, and so is every secret value the config held wherever else it appears.
import { isMap, isPair, isScalar, parseDocument, visit } from 'yaml';

export const MASK = '***';

/** Keys whose values are secrets: `api_key`, `OPENAI_API_KEY`, `hf_token`, `password`, `secret_key`, … */
const SECRET_KEY = /(api[_-]?key|apikey|token|secret|passw(or)?d|passwd|credential|private[_-]?key|access[_-]?key|authorization|auth[_-]?key)/i;
/** Keys that contain a secret word but hold no secret (token counts and lengths). */
const NOT_SECRET_KEY = /(max|min|num|n)_?(new_)?tokens?\b|tokens?_(len|length|count|num|limit|budget|id|ids|per)(?![a-z])|^(max|min)_?\w*tokens|tokenizer/i;
/** An environment reference (`${OPENAI_API_KEY}`, `$HF_TOKEN`) names a secret but is none. */
const ENV_REF = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;

export const isSecretKey = (key: string): boolean => SECRET_KEY.test(key) && !NOT_SECRET_KEY.test(key);

/** Strings only: numbers under such keys are counts and lengths (`ppo_max_token_len_per_gpu: 16384`). */
const maskable = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && !ENV_REF.test(v.trim());

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
  visit(doc, {
    Pair(_key, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !isSecretKey(String(pair.key.value))) return undefined;
      if (isScalar(pair.value) && maskable(pair.value.value)) {
        secrets.push(String(pair.value.value));
        pair.value.value = MASK;
        changed = true;
      } else if (isMap(pair.value)) {
        // `secrets: {a: …, b: …}`: every value below a secret key is a secret
        visit(pair.value, {
          Scalar(k, s) {
            if (k !== 'key' && maskable(s.value)) {
              secrets.push(String(s.value));
              s.value = MASK;
              changed = true;
            }
          },
        });
      }
      return undefined;
    },
  });
  return { text: changed ? doc.toString() : text, secrets };
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

/** Shapes of well-known credentials (OpenAI/DashScope `sk-…`, Hugging Face, GitHub, AWS, bearer tokens, `key=value`). */
const SHAPES: Array<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_-]{12,}/g, `sk-${MASK}`],
  [/\bhf_[A-Za-z0-9]{16,}/g, `hf_${MASK}`],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, MASK],
  [/\bAKIA[0-9A-Z]{16}\b/g, MASK],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${MASK}`],
  [/\b([\w-]*(?:api[_-]?key|token|secret|password)[\w-]*)(\s*[=:]\s*)(["']?)(?!\$\{)(?![\d.]+\b)[^\s"',;}]{6,}\3/gi, `$1$2$3${MASK}$3`],
];

/** Masks credential-shaped strings and the given secret values in free text. */
export function maskSecretsInText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // longest first: a secret that contains another is masked whole
  for (const s of [...new Set(secrets)].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  for (const [re, to] of SHAPES) out = out.replace(re, to);
  return out;
}
