// `npm run bench -- tokens [--runs 5] [--tokens 32768]`
//
// A 32 k-token experience (the fixture tokenizer's texts, Trinity's mask per turn, logprobs and
// advantages) to a drawn token view in real Chromium: from the typed arrays in the page to the
// frame after the view is on screen (the token model built, the view laid out, the lines on
// screen drawn and painted), median of `--runs`. The peer, in the same page and run: the naive
// rendering — one span per token, all 32 k in the DOM, the same classes and texts. Then the
// jump to the lowest logprob (scroll + redraw + paint).
// Where the relay → view leg goes: when the relay sends an experience's tensors in binary frames,
// this bench times frame bytes → drawn view and adds `wire_ratio` (bytes on the wire / raw
// tensor bytes) to the BENCH line; `wireRatio` below is the place.
// Ends with: BENCH tokens tokens_32k_ms=<median> naive_ms=<median> naive_ratio=<naive/view> jump_ms=<median> dom_nodes=<n> naive_dom_nodes=<n>
import { parseArgs } from 'util';
import { english } from '../../src/base/l10n';
import { tokenViewStrings } from '../../src/tokens/view-strings';
import { longExperience } from '../harness/long-experience';
import { skipNoTokenizer, tinyTokenizer } from '../harness/tiny-tokenizer';
import { openTokenViewPage, type TokenViewGlobal, toWire } from '../harness/token-view-page';

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

/** Not measured yet: the relay does not send tensors. Bytes on the wire / raw tensor bytes, once it does. */
const wireRatio: number | undefined = undefined;

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
          document: { getElementById(id: string): { replaceChildren(...n: unknown[]): void; append(n: unknown): void; querySelectorAll(s: string): { length: number } }; createElement(t: string): { className: string; textContent: string; append(n: unknown): void } };
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
        const texts = w.texts && { joined: w.texts.joined, offsets: tv.decode(w.texts.offsets, 'u32'), flags: tv.decode(w.texts.flags, 'u8'), partialBytes: w.texts.partialBytes };
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
    report(r, exp.tokens.length);
  } finally {
    await wp.close();
  }
}

function report(r: PageResult, n: number): void {
  const view = median(r.view);
  const naive = median(r.naive);
  const jump = median(r.jump);
  const f = (x: number) => x.toFixed(1);
  console.log(`  token view : ${r.view.map(f).join(' ')} ms → median ${f(view)} ms (target ≤ 150), ${r.nodes} DOM nodes`);
  console.log(`  all-DOM    : ${r.naive.map(f).join(' ')} ms → median ${f(naive)} ms, ${r.naiveNodes} DOM nodes`);
  console.log(`  jump to lowest logprob: ${r.jump.map(f).join(' ')} ms → median ${f(jump)} ms`);
  const key = n === 32768 ? 'tokens_32k_ms' : `tokens_${n}_ms`;
  const wire = wireRatio === undefined ? '' : ` wire_ratio=${wireRatio}`;
  console.log(`BENCH tokens ${key}=${f(view)} naive_ms=${f(naive)} naive_ratio=${(naive / view).toFixed(2)} jump_ms=${f(jump)} dom_nodes=${r.nodes} naive_dom_nodes=${r.naiveNodes}${wire}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
