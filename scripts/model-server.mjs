#!/usr/bin/env node
// A real, small OpenAI-compatible chat server over llama.cpp (npm node-llama-cpp, CPU build),
// serving the tiny tool-calling fixture model for tests, benches and `npm start`.
//   node scripts/model-server.mjs [--port 8089] [--model test/fixtures/tiny-toolcall/tiny-toolcall.gguf]
//                                 [--model-id tiny-toolcall] [--threads 2] [--context 2048] [--max-tokens N]
// Loopback only. Implements GET /v1/models and POST /v1/chat/completions with tools
// (Qwen2.5 / Hermes `<tool_call>` format), tool_calls, finish_reason, usage, streaming SSE
// (token by token without tools), `logprobs` and vLLM-style `return_token_ids`; and llama.cpp
// server's POST /tokenize ({content, add_special, with_pieces}), /detokenize ({tokens}) and
// /apply-template ({messages, tools}) for clients that tokenize through the endpoint.
// Prints `READY http://127.0.0.1:<port>/v1` once it serves. node-llama-cpp is installed by
// `scripts/setup.sh model` into .cache/model-server (kept out of `npm ci` and the VSIX).
//
// Programmatic use (tests, scripts/start.mjs):
//   import { spawnModelServer } from './model-server.mjs';
//   const srv = await spawnModelServer({ port: 0 });   // -> { url, port, pid, stop() }
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..');
export const DEFAULT_MODEL = path.join(repoRoot, 'test', 'fixtures', 'tiny-toolcall', 'tiny-toolcall.gguf');
export const RUNTIME_DIR = path.join(repoRoot, '.cache', 'model-server');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Starts the server as a child process (own process group) and resolves once it serves.
 * @param {{port?: number, model?: string, modelId?: string, threads?: number, context?: number, maxTokens?: number, log?: (s: string) => void}} [opts]
 * @returns {Promise<{url: string, port: number, pid: number, process: import('node:child_process').ChildProcess, stop: () => Promise<void>}>}
 */
export function spawnModelServer(opts = {}) {
  const args = [fileURLToPath(import.meta.url), '--port', String(opts.port ?? 0)];
  if (opts.model) args.push('--model', opts.model);
  if (opts.modelId) args.push('--model-id', opts.modelId);
  if (opts.threads) args.push('--threads', String(opts.threads));
  if (opts.context) args.push('--context', String(opts.context));
  if (opts.maxTokens) args.push('--max-tokens', String(opts.maxTokens));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const log = opts.log ?? (() => {});
  let stderr = '';
  child.stderr.on('data', (b) => {
    stderr += b;
    log(String(b));
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`model server did not start within 60 s\n${stderr}`));
    }, 60_000);
    const stop = () =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        // A ref'd timer: it also keeps the event loop alive until the child is reaped.
        const force = setTimeout(() => {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }, 3000);
        child.once('exit', () => {
          clearTimeout(force);
          done();
        });
        try {
          process.kill(-child.pid, 'SIGCONT');
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          clearTimeout(force);
          return done();
        }
      });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`model server exited (${code ?? signal}) before it was ready\n${stderr}`));
    });
    let ready = false;
    child.stdout.on('data', (b) => {
      log(String(b));
      if (ready) return;
      buf += b;
      const m = buf.match(/^READY (http:\/\/\S+)$/m);
      if (!m) return;
      ready = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const url = m[1];
      resolve({ url, port: Number(new URL(url).port), pid: child.pid, process: child, stop });
    });
  });
}

// ---- prompt rendering: the Qwen2.5 chat template (tojson = Python json.dumps spacing) ----

function pyJson(x) {
  if (x === null || typeof x !== 'object') return JSON.stringify(x);
  if (Array.isArray(x)) return '[' + x.map(pyJson).join(', ') + ']';
  return (
    '{' +
    Object.entries(x)
      .map(([k, v]) => JSON.stringify(k) + ': ' + pyJson(v))
      .join(', ') +
    '}'
  );
}

const contentText = (c) => (Array.isArray(c) ? c.map((p) => (typeof p === 'string' ? p : (p?.text ?? ''))).join('') : (c ?? ''));

export function render(messages, tools, addGenerationPrompt = true) {
  const msgs = [...messages];
  let system = msgs[0]?.role === 'system' ? contentText(msgs.shift().content) : 'You are a helpful assistant.';
  if (tools?.length) {
    system +=
      '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
      'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
    for (const t of tools) system += '\n' + pyJson(t);
    system +=
      '\n</tools>\n\nFor each function call, return a json object with function name and arguments ' +
      'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';
  }
  let out = '<|im_start|>system\n' + system + '<|im_end|>\n';
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role === 'user' || m.role === 'system') out += `<|im_start|>${m.role}\n` + contentText(m.content) + '<|im_end|>\n';
    else if (m.role === 'assistant') {
      let s = '<|im_start|>assistant';
      if (m.content) s += '\n' + contentText(m.content);
      for (const tc of m.tool_calls || []) {
        const a = tc.function.arguments;
        const args = typeof a === 'string' ? JSON.parse(a || '{}') : a;
        s += '\n<tool_call>\n{"name": "' + tc.function.name + '", "arguments": ' + pyJson(args) + '}\n</tool_call>';
      }
      out += s + '<|im_end|>\n';
    } else if (m.role === 'tool') {
      let s = '<|im_start|>user';
      for (; i < msgs.length && msgs[i].role === 'tool'; i++) s += '\n<tool_response>\n' + contentText(msgs[i].content) + '\n</tool_response>';
      i--;
      out += s + '<|im_end|>\n';
    }
  }
  return addGenerationPrompt ? out + '<|im_start|>assistant\n' : out;
}

let callSeq = 0;
export function parseToolCalls(text) {
  const calls = [];
  const content = text
    .replace(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g, (whole, body) => {
      try {
        const j = JSON.parse(body);
        if (typeof j?.name !== 'string') return whole;
        calls.push({
          id: `call_${Date.now().toString(36)}${(callSeq++).toString(36)}`,
          type: 'function',
          function: { name: j.name, arguments: JSON.stringify(j.arguments ?? {}) },
        });
        return '';
      } catch {
        return whole; // malformed: leave it as text, as real servers do
      }
    })
    .trim();
  return { content, calls };
}

// ---- the server ----

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * The sampled token's logprob under the model's own distribution, as vLLM reports it by default
 * (raw logprobs, before temperature): node-llama-cpp gives the distribution sampled from,
 * p_T ∝ exp(logit / T), so p_1(token) = p_T(token)^T / Σ p_T(i)^T. At temperature 0 its
 * confidence is already the softmax of the logits.
 */
function rawLogprob(step, temperature) {
  const p = Math.max(step.confidence ?? 1, 1e-30);
  if (!(temperature > 0) || !step.probabilities) return Math.log(p);
  let z = 0;
  for (const q of step.probabilities.values()) z += q ** temperature;
  return temperature * Math.log(p) - Math.log(z);
}

async function serve({ port, host, modelPath, modelId, threads, contextSize = 2048, maxTokensCap = Infinity }) {
  const entry = path.join(RUNTIME_DIR, 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  if (!fs.existsSync(entry)) {
    throw new Error(`node-llama-cpp is not installed in ${RUNTIME_DIR}; run: bash scripts/setup.sh model`);
  }
  if (!fs.existsSync(modelPath)) throw new Error(`model file not found: ${modelPath}`);
  const { getLlama } = await import(pathToFileURL(entry).href);
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize, threads });
  const vocabSize = model.fileInfo.metadata?.tokenizer?.ggml?.tokens?.length ?? 0;
  let queue = Promise.resolve(); // one sequence: requests are served one at a time

  const isStop = (tok) => model.isSpecialToken(tok) || tok === model.tokens.eos || tok === model.tokens.eot;

  /** Generates the reply; `onToken(piece)` streams plain-text pieces when given. */
  async function generate(body, onToken) {
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw new HttpError(400, '`messages` must be a non-empty array');
    const prompt = render(body.messages, body.tools);
    const promptTokens = model.tokenize(prompt, true);
    if (promptTokens.length >= contextSize) throw new HttpError(400, `prompt is ${promptTokens.length} tokens; the context holds ${contextSize}`);
    const maxTokens = Math.min(body.max_completion_tokens ?? body.max_tokens ?? 256, contextSize - promptTokens.length, maxTokensCap);
    const wantLogprobs = body.logprobs === true;
    const seq = context.getSequence();
    const out = [];
    const logprobs = [];
    const t0 = performance.now();
    try {
      // OpenAI's and vLLM's defaults: no top-k, top_p 1. (node-llama-cpp's own, top-k 40 and
      // top-p 0.95, cut a confident model's distribution to its top token, whose confidence is then
      // 1: every logprob 0.)
      const temperature = body.temperature ?? 0;
      const gen = seq.evaluateWithMetadata(
        promptTokens,
        { confidence: wantLogprobs, probabilities: wantLogprobs && temperature > 0 },
        { temperature, topK: body.top_k > 0 ? body.top_k : 0, topP: body.top_p ?? 1, seed: body.seed ?? undefined },
      );
      for await (const step of gen) {
        if (isStop(step.token)) break;
        out.push(step.token);
        const piece = model.detokenize([step.token]);
        const lp = wantLogprobs ? { token: piece, logprob: rawLogprob(step, temperature), bytes: [...Buffer.from(piece)], top_logprobs: [] } : null;
        if (lp) logprobs.push(lp);
        onToken?.(piece, lp);
        if (out.length >= maxTokens) break;
      }
    } finally {
      seq.dispose();
    }
    return {
      text: model.detokenize(out),
      promptTokens,
      completionTokens: out,
      logprobs: wantLogprobs ? logprobs : null,
      truncated: out.length >= maxTokens,
      ms: performance.now() - t0,
    };
  }

  const readBody = async (req) => {
    let raw = '';
    for await (const c of req) raw += c;
    try {
      return JSON.parse(raw);
    } catch {
      throw new HttpError(400, 'request body is not valid JSON');
    }
  };

  // llama.cpp server's shapes: special tokens in the text are matched (parse_special), BOS only with add_special.
  function tokenizeBody(body) {
    if (typeof body.content !== 'string') throw new HttpError(400, '`content` must be a string');
    const ids = model.tokenize(body.content, true);
    if (body.add_special === true && model.tokens.bos !== null && model.tokens.bos !== undefined && ids[0] !== model.tokens.bos) ids.unshift(model.tokens.bos);
    const tokens = body.with_pieces === true ? ids.map((id) => ({ id, piece: model.detokenize([id], true) })) : [...ids];
    return { tokens };
  }
  function detokenizeBody(body) {
    const ids = body.tokens;
    // An id outside the vocabulary aborts llama.cpp natively: refused here.
    if (!Array.isArray(ids) || !ids.every((t) => Number.isInteger(t) && t >= 0 && t < vocabSize))
      throw new HttpError(400, `\`tokens\` must be a list of token ids below ${vocabSize}`);
    try {
      return { content: model.detokenize(ids, true) };
    } catch (e) {
      throw new HttpError(400, `cannot detokenize: ${e?.message ?? e}`);
    }
  }

  async function chat(req, res) {
    const body = await readBody(req);
    const stream = body.stream === true;
    const streamsText = stream && !body.tools?.length; // with tools the reply is parsed first
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-${created.toString(36)}${(callSeq++).toString(36)}`;
    const chunk = (choice, extra = {}) =>
      'data: ' +
      JSON.stringify({ id, object: 'chat.completion.chunk', created, model: modelId, choices: [{ index: 0, logprobs: null, ...choice }], ...extra }) +
      '\n\n';
    let started = false;
    const startStream = () => {
      if (started) return;
      started = true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }));
    };
    const job = queue.then(() =>
      generate(
        body,
        streamsText
          ? (piece, lp) => {
              startStream();
              res.write(chunk({ delta: { content: piece }, finish_reason: null, logprobs: lp ? { content: [lp] } : null }));
            }
          : undefined,
      ),
    );
    queue = job.catch(() => {});
    const r = await job;
    const { content, calls } = body.tools?.length ? parseToolCalls(r.text) : { content: r.text, calls: [] };
    const finish = calls.length ? 'tool_calls' : r.truncated ? 'length' : 'stop';
    const usage = {
      prompt_tokens: r.promptTokens.length,
      completion_tokens: r.completionTokens.length,
      total_tokens: r.promptTokens.length + r.completionTokens.length,
    };
    const logprobs = r.logprobs ? { content: r.logprobs } : null;
    const tokenIds = body.return_token_ids === true;
    if (stream) {
      startStream();
      if (!streamsText) {
        const delta = { content: calls.length && !content ? null : content };
        if (calls.length) delta.tool_calls = calls.map((c, index) => ({ index, ...c }));
        res.write(chunk({ delta, finish_reason: null, logprobs }));
      }
      const last = { delta: {}, finish_reason: finish };
      if (tokenIds) last.token_ids = r.completionTokens;
      // vLLM streams `prompt_token_ids` too when asked (Trinity's serve proxy needs them to record)
      const extra = { ...(tokenIds ? { prompt_token_ids: r.promptTokens } : {}), ...(body.stream_options?.include_usage ? { usage } : {}) };
      res.write(chunk(last, extra));
      return res.end('data: [DONE]\n\n');
    }
    const message = { role: 'assistant', content: calls.length && !content ? null : content };
    if (calls.length) message.tool_calls = calls;
    const choice = { index: 0, message, logprobs, finish_reason: finish };
    if (tokenIds) choice.token_ids = r.completionTokens;
    const payload = { id, object: 'chat.completion', created, model: modelId, choices: [choice], usage };
    if (tokenIds) payload.prompt_token_ids = r.promptTokens;
    payload.timings = { ms: Math.round(r.ms * 1000) / 1000 };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  }

  const server = http.createServer(async (req, res) => {
    const send = (code, obj) => {
      if (!res.headersSent) res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(obj));
    };
    try {
      const url = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
      if (req.method === 'GET' && url === '/v1/models') {
        return send(200, { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'local' }] });
      }
      if (req.method === 'POST' && url === '/v1/chat/completions') return await chat(req, res);
      if (req.method === 'POST' && url === '/tokenize') return send(200, tokenizeBody(await readBody(req)));
      if (req.method === 'POST' && url === '/detokenize') return send(200, detokenizeBody(await readBody(req)));
      if (req.method === 'POST' && url === '/apply-template') {
        const body = await readBody(req);
        if (!Array.isArray(body.messages)) throw new HttpError(400, '`messages` must be an array');
        return send(200, { prompt: render(body.messages, body.tools, body.add_generation_prompt !== false) });
      }
      send(404, { error: { message: `no route ${req.method} ${url}`, type: 'invalid_request_error' } });
    } catch (e) {
      send(e instanceof HttpError ? e.status : 500, {
        error: { message: String(e?.message ?? e), type: e instanceof HttpError ? 'invalid_request_error' : 'server_error' },
      });
    }
  });
  server.keepAliveTimeout = 5000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actual = server.address().port;
  const shutdown = async () => {
    server.close();
    server.closeAllConnections?.();
    await context.dispose().catch(() => {});
    await model.dispose().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.stdout.write(`READY http://${host === '::1' ? '[::1]' : host}:${actual}/v1\n`);
  process.stdout.write(`model-server: ${modelId} (${path.basename(modelPath)}) via node-llama-cpp on CPU\n`);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.AGENTRL_MODEL_PORT ?? '8089' },
      host: { type: 'string', default: '127.0.0.1' },
      model: { type: 'string', default: DEFAULT_MODEL },
      'model-id': { type: 'string' },
      threads: { type: 'string', default: '2' },
      // Multi-turn workflows (Trinity's frozen lake: ten turns) outgrow 2048 tokens of history.
      context: { type: 'string', default: '2048' },
      // A server-side cap on reply length (like a serving limit): keeps long multi-turn runs quick on CPU.
      'max-tokens': { type: 'string' },
    },
  });
  if (!LOOPBACK.has(values.host)) {
    console.error(`model-server: refusing to listen on ${values.host}: loopback only (127.0.0.1, ::1)`);
    process.exit(2);
  }
  const modelPath = path.resolve(values.model);
  serve({
    port: Number(values.port),
    host: values.host === 'localhost' ? '127.0.0.1' : values.host,
    modelPath,
    modelId: values['model-id'] ?? path.basename(modelPath).replace(/\.gguf$/, ''),
    threads: Number(values.threads),
    contextSize: Number(values.context),
    maxTokensCap: values['max-tokens'] ? Number(values['max-tokens']) : Infinity,
  }).catch((e) => {
    console.error(`model-server: ${e?.message ?? e}`);
    process.exit(1);
  });
}
