// `npm run bench -- tokens [--runs 5] [--tokens 32768]`
//
// A 32 k-token experience (the fixture tokenizer's texts, Trinity's mask per turn, logprobs and
// advantages) to a drawn token view in real Chromium: from the typed arrays in the page to the
// frame after the view is on screen (the token model built, the view laid out, the lines on
// screen drawn and painted), median of `--runs`. The peer, in the same page and run: the naive
// rendering — one span per token, all 32 k in the DOM, the same classes and texts. Then the
// jump to the lowest logprob (scroll + redraw + paint).
// Then the relay leg: the same experience as Trinity-RFT 0.5.2's own SQL writer stores it (int64
// ids, float32 logprobs/advantages/returns, bool mask: test/fixtures/tokens/trinity_token_rows.py),
// asked of a relay (dist/agentrl.js, its own process) with a `tokens` request: the reply's
// binary frame decoded and the token texts made by the fixture tokenizer (the editor's side),
// then the view built and painted in Chromium — relay_view_ms is the sum per run, median of
// `--runs` (the hop from the extension host into the webview is not in it: the page gets the
// arrays before its clock starts). wire_ratio = the frame's bytes / the tensors' bytes in the row.
// Ends with: BENCH tokens tokens_32k_ms=<median> naive_ms=<median> naive_ratio=<naive/view> jump_ms=<median> dom_nodes=<n> naive_dom_nodes=<n> relay_view_ms=<median> wire_ratio=<r>
import { parseArgs } from 'util';
import { english } from '../../src/base/l10n';
import { tokenViewStrings } from '../../src/tokens/view-strings';
import { type LongExperience, longExperience } from '../harness/long-experience';
import { skipNoTokenizer, tinyTokenizer } from '../harness/tiny-tokenizer';
import { openTokenViewPage, type TokenViewGlobal, toWire } from '../harness/token-view-page';
import { RelayClient } from '../../src/relay-protocol/client';
import { type TokensReply, encodeTokensFrame } from '../../src/relay-protocol/tokens-frame';
import type { TokenExperience } from '../../src/tokens/experience';
import { experienceOfReply } from '../../src/tokens/relay-reply';
import { startRelay } from '../harness/relay';
import { writeTokenRows } from '../harness/trinity-token-rows';
import { until } from '../harness/wait';
import { noTrinity } from '../component/relay/trinity-sql-writer';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, tokens: { type: 'string', default: '32768' } } });
const runs = Number(values.runs);

interface PageResult {
  view: number[];
  naive: number[];
  jump: number[];
  nodes: number;
  naiveNodes: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  if (skipNoTokenizer) throw new Error(`tokens bench ${skipNoTokenizer}`);
  const exp = longExperience(tinyTokenizer(), Number(values.tokens));
  console.log(`tokens: ${exp.tokens.length} tokens (prompt ${exp.prompt_length}), ${runs} runs each`);
  const wp = await openTokenViewPage({ viewport: { width: 1280, height: 900 } });
  try {
    const r = await wp.page.evaluate(
      async ([w, strings, n]) => {
        type G = TokenViewGlobal & { colourFor?: unknown };
        const g = globalThis as unknown as {
          __tv: G;
          document: {
            getElementById(id: string): { replaceChildren(...n: unknown[]): void; append(n: unknown): void; querySelectorAll(s: string): { length: number } };
            createElement(t: string): { className: string; textContent: string; append(n: unknown): void };
          };
          performance: { now(): number };
          requestAnimationFrame(cb: () => void): number;
          setTimeout(cb: () => void, ms: number): number;
        };
        const tv = g.__tv;
        const root = g.document.getElementById('root');
        if (!root) throw new Error('no #root');
        // The arrays as a binary frame delivers them (decoded once, outside the timing).
        const arrays = {
          tokens: tv.decode(w.tokens, 'i32'),
          prompt_length: w.prompt_length,
          logprobs: w.logprobs && tv.decode(w.logprobs, 'f32'),
          action_mask: w.action_mask && tv.decode(w.action_mask, 'u8'),
          advantages: w.advantages && tv.decode(w.advantages, 'f32'),
          truncate_status: w.truncate_status,
          response_text: w.response_text,
        };
        const texts = w.texts && {
          joined: w.texts.joined,
          offsets: tv.decode(w.texts.offsets, 'u32'),
          flags: tv.decode(w.texts.flags, 'u8'),
          partialBytes: w.texts.partialBytes,
        };
        const painted = () => new Promise<void>((res) => g.requestAnimationFrame(() => g.setTimeout(res, 0)));
        const out = { view: [] as number[], naive: [] as number[], jump: [] as number[], nodes: 0, naiveNodes: 0 };
        for (let k = 0; k < n; k++) {
          root.replaceChildren();
          await painted();
          const t0 = g.performance.now();
          const e = tv.fromTensors(arrays, texts) as { ids: Int32Array; texts?: { joined: string; offsets: Uint32Array } };
          const view = new tv.TokenView({ strings });
          root.append(view.element);
          view.show(e);
          await painted();
          out.view.push(g.performance.now() - t0);
          out.nodes = root.querySelectorAll('*').length;
          const t1 = g.performance.now();
          view.jumpToLowest();
          await painted();
          out.jump.push(g.performance.now() - t1);

          // The peer: every token a span, all in the DOM.
          root.replaceChildren();
          await painted();
          const t2 = g.performance.now();
          const e2 = tv.fromTensors(arrays, texts) as { ids: Int32Array; trained: Uint8Array; texts?: { joined: string; offsets: Uint32Array } };
          const box = g.document.createElement('div');
          box.className = 'tv-line';
          for (let i = 0; i < e2.ids.length; i++) {
            const s = g.document.createElement('span');
            s.className = e2.trained[i] ? 'tv-tok tv-trained' : 'tv-tok tv-prompt';
            s.textContent = e2.texts ? e2.texts.joined.slice(e2.texts.offsets[i], e2.texts.offsets[i + 1]) : String(e2.ids[i]);
            box.append(s);
          }
          root.append(box);
          await painted();
          out.naive.push(g.performance.now() - t2);
          out.naiveNodes = root.querySelectorAll('*').length;
        }
        return out;
      },
      [toWire(exp, exp.texts), tokenViewStrings(english), runs] as const,
    );
    const relay = await relayLeg(wp, exp);
    report(r, exp.tokens.length, relay);
  } finally {
    await wp.close();
  }
}

interface RelayLeg {
  /** Per run: relay request → frame decoded → token texts (node), plus the page's build + paint. */
  total: number[];
  node: number[];
  /** The part of `node` until the reply's frame is decoded; the rest is the token model and its texts. */
  request: number[];
  page: number[];
  wireRatio: number;
  tokens: number;
}

/** The relay → drawn view leg, or why it cannot run here. */
async function relayLeg(wp: Awaited<ReturnType<typeof openTokenViewPage>>, long: LongExperience): Promise<RelayLeg | string> {
  if (noTrinity) return noTrinity;
  const n = long.tokens.length;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-bench-tokens-'));
  const file = path.join(dir, 'long.json');
  const list = (a: ArrayLike<number>) => Array.from(a);
  fs.writeFileSync(
    file,
    JSON.stringify({
      tokens: list(long.tokens),
      prompt_length: long.prompt_length,
      logprobs: list(long.logprobs),
      action_mask: list(long.action_mask),
      advantages: list(long.advantages),
      response_text: long.response_text,
    }),
  );
  const { job, rows } = writeTokenRows(path.join(dir, 'job'), file);
  const id = rows.find((r) => r.tokens?.length === n)?.id;
  if (id === undefined) throw new Error(`no ${n}-token row written`);
  const relay = await startRelay(['--job-dir', job]);
  const client = new RelayClient({ url: relay.url });
  client.start();
  try {
    const source = await until('the SQL source', () => client.state === 'open' && client.sources().find((s) => s.kind === 'sql')?.id);
    const tk = { tokenizer: tinyTokenizer() };
    const node: number[] = [];
    const request: number[] = [];
    let reply: TokensReply | undefined;
    let exp: TokenExperience | undefined;
    for (let k = 0; k < runs; k++) {
      const t0 = performance.now();
      reply = await client.requestTokens(source, id);
      request.push(performance.now() - t0);
      exp = experienceOfReply(reply, tk);
      node.push(performance.now() - t0);
    }
    const stored = reply!.stored_bytes ?? NaN;
    const wireRatio = encodeTokensFrame(reply!).byteLength / stored;
    const e = exp!;
    const wire = toWire(
      {
        tokens: e.ids,
        prompt_length: e.promptLength,
        logprobs: e.logprobs,
        action_mask: e.trained,
        advantages: e.advantages,
        truncate_status: e.truncateStatus,
      },
      e.texts,
    );
    const page = await wp.page.evaluate(
      async ([w, strings, n]) => {
        const g = globalThis as unknown as {
          __tv: TokenViewGlobal;
          document: { getElementById(id: string): { replaceChildren(...n: unknown[]): void; append(n: unknown): void } };
          performance: { now(): number };
          requestAnimationFrame(cb: () => void): number;
          setTimeout(cb: () => void, ms: number): number;
        };
        const tv = g.__tv;
        const root = g.document.getElementById('root');
        const arrays = {
          tokens: tv.decode(w.tokens, 'i32'),
          prompt_length: w.prompt_length,
          logprobs: w.logprobs && tv.decode(w.logprobs, 'f32'),
          action_mask: w.action_mask && tv.decode(w.action_mask, 'u8'),
          advantages: w.advantages && tv.decode(w.advantages, 'f32'),
          truncate_status: w.truncate_status,
        };
        const texts = w.texts && {
          joined: w.texts.joined,
          offsets: tv.decode(w.texts.offsets, 'u32'),
          flags: tv.decode(w.texts.flags, 'u8'),
          partialBytes: w.texts.partialBytes,
        };
        const painted = () => new Promise<void>((res) => g.requestAnimationFrame(() => g.setTimeout(res, 0)));
        const out: number[] = [];
        for (let k = 0; k < n; k++) {
          root.replaceChildren();
          await painted();
          const t0 = g.performance.now();
          const view = new tv.TokenView({ strings });
          root.append(view.element);
          view.show(tv.fromTensors(arrays, texts));
          await painted();
          out.push(g.performance.now() - t0);
        }
        return out;
      },
      [wire, tokenViewStrings(english), runs] as const,
    );
    return { total: node.map((x, i) => x + page[i]), node, request, page, wireRatio, tokens: e.ids.length };
  } finally {
    await client.close();
    await relay.stop();
  }
}

function report(r: PageResult, n: number, relay: RelayLeg | string): void {
  const view = median(r.view);
  const naive = median(r.naive);
  const jump = median(r.jump);
  const f = (x: number) => x.toFixed(1);
  console.log(`  token view : ${r.view.map(f).join(' ')} ms → median ${f(view)} ms (target ≤ 150), ${r.nodes} DOM nodes`);
  console.log(`  all-DOM    : ${r.naive.map(f).join(' ')} ms → median ${f(naive)} ms, ${r.naiveNodes} DOM nodes`);
  console.log(`  jump to lowest logprob: ${r.jump.map(f).join(' ')} ms → median ${f(jump)} ms`);
  const key = n === 32768 ? 'tokens_32k_ms' : `tokens_${n}_ms`;
  let wire = '';
  if (typeof relay === 'string') console.log(`  relay → view: not run (${relay})`);
  else {
    console.log(
      `  relay → view (${relay.tokens} tokens): relay + decode + texts ${relay.node.map(f).join(' ')} ms (of which relay + decode ${relay.request.map(f).join(' ')} ms), view ${relay.page.map(f).join(' ')} ms → median ${f(median(relay.total))} ms (target ≤ 150); wire ${relay.wireRatio.toFixed(3)}× the stored tensors (target ≤ 1.2)`,
    );
    wire = ` relay_view_ms=${f(median(relay.total))} wire_ratio=${relay.wireRatio.toFixed(3)}`;
  }
  console.log(
    `BENCH tokens ${key}=${f(view)} naive_ms=${f(naive)} naive_ratio=${(naive / view).toFixed(2)} jump_ms=${f(jump)} dom_nodes=${r.nodes} naive_dom_nodes=${r.naiveNodes}${wire}`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
