// Secrets masked in a report bound for a public issue: a real Trinity config (Trinity-RFT's gsm8k example
// from the ../shared corpus) with an API key, a token and env_vars put in, free
// text with key-shaped strings, and YAML too broken to parse.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { isSecretKey, MASK, maskConfigSecrets, maskSecretsInText } from '../../../../src/ray/diagnostics/mask-secrets';
import { hasShared, sharedDir } from '../../../harness/paths';
import { renderDiagnostics } from '../../../../src/ray/diagnostics/report';
import { rng } from '../../../harness/rng';

const KEY = 'sk-live-1234567890abcdefABCDEF';
const HF = 'hf_abcdefghijklmnopqrstuvwx';

const sample = path.join(sharedDir, 'corpus', 'trinity-rft', 'examples', 'grpo_gsm8k', 'gsm8k.yaml');
const noSample = !hasShared || !fs.existsSync(sample) ? '../shared (the Trinity-RFT corpus) is missing' : false;

test('a Trinity config: api_key, tokens and env_vars values masked, the rest and the comments untouched', { skip: noSample }, () => {
  const original = fs.readFileSync(sample, 'utf8');
  const text = `${original}\n# added for the test\nmodel_api:\n  api_key: ${KEY}   # the real key\n  base_url: http://127.0.0.1:8000/v1\n  max_tokens: 2048\nray_env:\n  env_vars:\n    HF_TOKEN: "${HF}"\n    OPENAI_API_KEY: \${OPENAI_API_KEY}\n    WANDB_MODE: offline\n`;
  const { text: masked, secrets } = maskConfigSecrets(text);
  assert.ok(!masked.includes(KEY) && !masked.includes(HF), masked);
  assert.ok(secrets.includes(HF) && secrets.includes(KEY), secrets.join(' '));
  const back = parse(masked) as Record<string, Record<string, unknown>>;
  assert.equal(back.model_api.api_key, MASK);
  assert.equal(back.model_api.max_tokens, 2048, 'a token count is no secret');
  assert.equal((back.ray_env.env_vars as Record<string, string>).OPENAI_API_KEY, '${OPENAI_API_KEY}', 'an env reference is no secret');
  assert.equal((back.ray_env.env_vars as Record<string, string>).WANDB_MODE, 'offline');
  assert.match(masked, /# the real key/, 'comments kept');
  const orig = parse(original) as Record<string, unknown>;
  for (const k of Object.keys(orig)) assert.deepEqual(back[k], orig[k], `${k} unchanged`);
});

test('a config with nothing secret comes back byte for byte', () => {
  const text = 'project: p  # c\nname: n\nmodel:\n  max_response_tokens: 512\n';
  assert.deepEqual(maskConfigSecrets(text), { text, secrets: [] });
});

test('YAML that does not parse is masked line by line', () => {
  const text = `project: p\nmodel:\n  api_key: "${KEY}"\n  bad: [unclosed\n  token = abcdef123456\n`;
  const r = maskConfigSecrets(text);
  assert.ok(!r.text.includes(KEY) && !r.text.includes('abcdef123456'), r.text);
  assert.match(r.text, /api_key: "\*\*\*"/);
  assert.match(r.text, /bad: \[unclosed/);
});

test('free text: the config secrets wherever they appear, and key-shaped strings', () => {
  const log = [
    `INFO using key ${KEY} for the judge`,
    `Authorization: Bearer abcdefghijklmnop`,
    `token=${HF}`,
    `ghp_${'a'.repeat(36)} and AKIA${'B'.repeat(16)}`,
    'max_tokens=204800 step=3',
  ].join('\n');
  const out = maskSecretsInText(log, ['ste', KEY]);
  assert.ok(
    !out.includes(KEY) && !out.includes(HF) && !out.includes('abcdefghijklmnop') && !out.includes('a'.repeat(36)) && !out.includes('B'.repeat(16)),
    out,
  );
  assert.match(out, /max_tokens=204800 step=3/, 'numbers are no secret');
  assert.match(out, /for the judge/);
  assert.match(out, /step=3/, 'values too short to be secrets are not masked everywhere');
});

test('which keys are secret', () => {
  for (const k of ['api_key', 'OPENAI_API_KEY', 'apiKey', 'hf_token', 'password', 'secret_access_key', 'Authorization']) assert.ok(isSecretKey(k), k);
  for (const k of ['max_tokens', 'max_response_tokens', 'tokenizer_path', 'num_tokens', 'token_ids', 'ppo_max_token_len_per_gpu', 'name'])
    assert.ok(!isSecretKey(k), k);
});

// The corpus of secret shapes a hostile-input probe leaked (Copy Diagnostics, second hardening pass): each goes through the
// whole report (config, entrypoint, logs) and its secret appears nowhere in it.
type Where = 'config' | 'entrypoint' | 'log';
const SHAPES: { name: string; where: Where; text: string; secret: string }[] = [
  { name: 'user:pass@ in base_url', where: 'config', text: 'model:\n  base_url: http://alice:s3cretPw9@10.0.0.5:8000/v1\n', secret: 's3cretPw9' },
  {
    name: 'postgresql:// buffer path',
    where: 'config',
    text: 'buffer:\n  trainer_input:\n    experience_buffer:\n      path: postgresql://trinity:pgPass771@db:5432/exp\n',
    secret: 'pgPass771',
  },
  { name: 'git URL in a log', where: 'log', text: 'Cloning https://bob:ghtokenvalue42@git.example.com/r.git', secret: 'ghtokenvalue42' },
  { name: 'mysql URL in a log', where: 'log', text: 'connect mysql://root:rootpw123@localhost/db', secret: 'rootpw123' },
  {
    name: 'JSON api_key inside a YAML value',
    where: 'config',
    text: `workflow_args:\n  judge: '{"api_key": "jsonkey123456", "model": "x"}'\n`,
    secret: 'jsonkey123456',
  },
  { name: 'JSON api_key in a log line', where: 'log', text: 'INFO request {"api_key": "logjsonkey789", "n": 2}', secret: 'logjsonkey789' },
  { name: 'Python dict password in a log', where: 'log', text: "cfg={'password': 'dictpw4567'}", secret: 'dictpw4567' },
  { name: 'JSON numeric password in a log', where: 'log', text: '{"password": 90817263}', secret: '90817263' },
  { name: '--api-key VALUE in the entrypoint', where: 'entrypoint', text: 'python serve.py --api-key entrykey5566 --port 8000', secret: 'entrykey5566' },
  { name: '--api-key=VALUE in the entrypoint', where: 'entrypoint', text: 'python serve.py --api-key=entrykey7788', secret: 'entrykey7788' },
  { name: '--password VALUE', where: 'entrypoint', text: 'tool --password hunter2hunter', secret: 'hunter2hunter' },
  { name: '--hf-token VALUE', where: 'entrypoint', text: 'trinity run --hf-token tokval998877', secret: 'tokval998877' },
  { name: 'a block list under a secret key', where: 'config', text: 'api_keys:\n  - listkey111aaa\n  - listkey222bbb\n', secret: 'listkey222bbb' },
  { name: 'a flow list under a secret key', where: 'config', text: 'tokens: [flowtok333ccc]\n', secret: 'flowtok333ccc' },
  { name: 'a list of maps under a secret key', where: 'config', text: 'credentials:\n  - host: a\n    value: mapcred444ddd\n', secret: 'mapcred444ddd' },
  { name: 'a map under a secret key', where: 'config', text: 'secrets:\n  judge: mapsecret555eee\n', secret: 'mapsecret555eee' },
  { name: 'a YAML alias', where: 'config', text: 'common: &k aliaskey666fff\nmodel:\n  api_key: *k\n', secret: 'aliaskey666fff' },
  { name: 'a numeric password', where: 'config', text: 'db:\n  password: 1234567\n', secret: '1234567' },
  { name: 'a numeric pwd', where: 'config', text: 'pwd: 99887766\n', secret: '99887766' },
  { name: 'Authorization: token …', where: 'log', text: 'Authorization: token authtok777ggg', secret: 'authtok777ggg' },
  { name: 'Authorization: Basic …', where: 'log', text: 'authorization: Basic YWxhZGRpbjpvcGVu', secret: 'YWxhZGRpbjpvcGVu' },
  { name: 'Authorization with no scheme', where: 'log', text: 'Authorization: rawauth888hhh', secret: 'rawauth888hhh' },
  { name: 'authorization key in config', where: 'config', text: 'headers:\n  Authorization: Bearer cfgbearer999iii\n', secret: 'cfgbearer999iii' },
  {
    name: 'Kubernetes env list',
    where: 'config',
    text: 'env:\n  - name: OPENAI_API_KEY\n    value: k8skey000jjj\n  - name: WANDB_MODE\n    value: offline\n',
    secret: 'k8skey000jjj',
  },
  { name: 'Kubernetes env list as JSON in a log', where: 'log', text: '[{"name": "HF_TOKEN", "value": "k8sjson111kkk"}]', secret: 'k8sjson111kkk' },
  { name: 'key pwd', where: 'config', text: 'pwd: pwdvalue222lll\n', secret: 'pwdvalue222lll' },
  { name: 'key auth', where: 'config', text: 'auth: authvalue333mmm\n', secret: 'authvalue333mmm' },
  { name: 'key http_auth', where: 'config', text: 'http_auth: user:httpauth444nnn\n', secret: 'httpauth444nnn' },
  { name: 'key bearer', where: 'config', text: 'bearer: bearerval555ooo\n', secret: 'bearerval555ooo' },
  { name: 'key cookie', where: 'config', text: 'cookie: session=cookieval666ppp\n', secret: 'cookieval666ppp' },
  { name: 'key dsn', where: 'config', text: 'sentry_dsn: https://dsnkey777qqq@o1.ingest.sentry.io/1\n', secret: 'dsnkey777qqq' },
  { name: 'Cookie header in a log', where: 'log', text: 'Cookie: sid=cookielog888rrr; theme=dark', secret: 'cookielog888rrr' },
  { name: 'api_key= in a log', where: 'log', text: 'starting judge api_key=logkey999sss', secret: 'logkey999sss' },
  { name: 'password: in a log', where: 'log', text: 'password: logpw000ttt', secret: 'logpw000ttt' },
  { name: 'sk- key in a log', where: 'log', text: 'using sk-abcdefghijklmnop1234', secret: 'abcdefghijklmnop1234' },
  { name: 'hf_ token in the entrypoint', where: 'entrypoint', text: 'HF_TOKEN=hf_abcdefghijklmnopqrstu python run.py', secret: 'abcdefghijklmnopqrstu' },
  { name: 'env_vars in the config', where: 'config', text: 'ray_env:\n  env_vars:\n    DASHSCOPE_API_KEY: envkey111uuu\n', secret: 'envkey111uuu' },
  { name: 'secret value reused in a log', where: 'config', text: 'model:\n  api_key: reusedkey222vvv\n', secret: 'reusedkey222vvv' },
  { name: 'quoted --token in the entrypoint', where: 'entrypoint', text: 'cli --token "quotedtok333www"', secret: 'quotedtok333www' },
  { name: 'a nested secret map with a list', where: 'config', text: 'auth:\n  keys:\n    - nestedkey444xxx\n', secret: 'nestedkey444xxx' },
];

test(`a corpus of ${SHAPES.length} secret shapes: none leaks anywhere in the report`, () => {
  assert.ok(SHAPES.length >= 38);
  const leaked: string[] = [];
  for (const s of SHAPES) {
    const md = renderDiagnostics({
      takenAt: '2026-12-07T00:00:00.000Z',
      job: {
        type: 'SUBMISSION',
        job_id: null,
        submission_id: 'raysubmit_1',
        status: 'RUNNING',
        entrypoint: s.where === 'entrypoint' ? s.text : 'trinity run --config c.yaml',
      } as never,
      nodes: [],
      actors: [],
      logs: [{ title: 'driver (job log)', lines: [...(s.where === 'log' ? [s.text] : []), s.where === 'config' ? `echo ${s.secret}` : 'Step 1'] }],
      config: { path: 'c.yaml', text: s.where === 'config' ? s.text : 'project: p\n' },
    });
    if (md.includes(s.secret)) leaked.push(s.name);
  }
  assert.deepEqual(leaked, []);
});

test('what is no secret stays: counts, env references, authors, plain URLs, flags without values', () => {
  const text =
    'max_tokens=2048 --max-tokens 64 author: Alice http://10.0.0.5:8000/v1 token_ids: [1, 2] --api-key ${OPENAI_API_KEY} "max_new_tokens": 512 --use-auth-token --port 8000';
  assert.equal(maskSecretsInText(text), text);
  const cfg = 'model:\n  max_response_tokens: 512\n  author: Alice\nenv:\n  - name: WANDB_MODE\n    value: offline\n';
  assert.deepEqual(maskConfigSecrets(cfg), { text: cfg, secrets: [] });
});

test('fuzz (fixed seed): 400 secrets under secret-named keys, in the config (nested maps, lists, quoted, JSON in a value), the entrypoint and the logs: none leaks', () => {
  const rand = rng(20261207);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const keys = [
    'api_key',
    'apiKey',
    'API_KEY',
    'access_token',
    'token',
    'hf_token',
    'password',
    'passwd',
    'pwd',
    'secret',
    'client_secret',
    'auth',
    'bearer',
    'cookie',
    'OPENAI_API_KEY',
    'private_key',
  ];
  const alnum = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const secretValue = () => `Zq${Array.from({ length: 10 + Math.floor(rand() * 14) }, () => pick([...alnum])).join('')}9`;
  const quote = (v: string) => pick([v, `"${v}"`, `'${v}'`]);
  const shapes: { where: 'config' | 'entrypoint' | 'log'; make: (k: string, v: string) => string }[] = [
    { where: 'config', make: (k, v) => `${k}: ${quote(v)}\n` },
    { where: 'config', make: (k, v) => `model:\n  judge:\n    ${k}: ${quote(v)}\n    max_tokens: 64\n` },
    { where: 'config', make: (k, v) => `${k}:\n  - ${quote(v)}\n` },
    { where: 'config', make: (k, v) => `${k}: [${v}]\n` },
    { where: 'config', make: (k, v) => `extra: '{"${k}": "${v}"}'\n` },
    { where: 'config', make: (k, v) => `headers: {${k}: ${v}}\n` },
    { where: 'config', make: (k, v) => `env:\n  - name: ${k.toUpperCase()}\n    value: ${quote(v)}\n` },
    { where: 'entrypoint', make: (k, v) => `python run.py --${k.replace(/_/g, '-').toLowerCase()} ${v} --steps 3` },
    { where: 'entrypoint', make: (k, v) => `python run.py --${k.replace(/_/g, '-').toLowerCase()}=${v}` },
    { where: 'entrypoint', make: (k, v) => `${k.toUpperCase()}=${v} trinity run --config c.yaml` },
    { where: 'log', make: (k, v) => `INFO starting with ${k}=${v} and more` },
    { where: 'log', make: (k, v) => `${k}: ${v}` },
    { where: 'log', make: (k, v) => `payload {"model": "m", "${k}": "${v}", "n": 1}` },
    { where: 'log', make: (k, v) => `GET https://api.example.com/v1/chat?${k}=${v}&x=1` },
    { where: 'log', make: (_k, v) => `connecting to postgresql://trinity:${v}@db:5432/buffer` },
  ];
  const leaked: string[] = [];
  for (let i = 0; i < 400; i++) {
    const shape = pick(shapes);
    const key = pick(keys);
    const secret = secretValue();
    const text = shape.make(key, secret);
    const md = renderDiagnostics({
      takenAt: '2026-12-07T00:00:00.000Z',
      job: {
        type: 'SUBMISSION',
        job_id: null,
        submission_id: 'raysubmit_1',
        status: 'RUNNING',
        entrypoint: shape.where === 'entrypoint' ? text : 'trinity run --config c.yaml',
      } as never,
      nodes: [],
      actors: [],
      logs: [{ title: 'driver (job log)', lines: [...(shape.where === 'log' ? [text] : []), 'Step 1'] }],
      config: { path: 'c.yaml', text: shape.where === 'config' ? text : 'project: p\n' },
    });
    if (md.includes(secret)) leaked.push(`${shape.where}: ${JSON.stringify(text)}`);
  }
  assert.deepEqual(leaked, []);
});
