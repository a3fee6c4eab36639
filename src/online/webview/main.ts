// The online-training playground in the webview (bundled by esbuild into media/online.js).
// It draws the state the extension host sends and posts the developer's actions back; it never
// touches the network (the CSP forbids it): typed messages from src/online/protocol/playground-protocol.ts,
// a `ready` handshake, a full `state` after each change and `delta`s while a reply streams.
import './online.css';
import { fromWire } from '../../tokens/experience-wire';
import { TokenView } from '../../webview-ui/token-view/token-view';
import type { HostToWebview, PlaygroundState, SamplingParams, Turn, WebviewToHost } from '../protocol/playground-protocol';

const vscode = acquireVsCodeApi<{ draft?: string }>();
const post = (m: WebviewToHost) => vscode.postMessage(m);
const root = document.getElementById('root')!;
let state: PlaygroundState | undefined;
/** text streamed so far for the alternative being generated: `${turn}:${alt}` */
const streaming = new Map<string, string>();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of kids) e.append(c);
  return e;
}
function button(label: string, cls: string, onClick: () => void, title?: string): HTMLButtonElement {
  const b = el('button', { class: cls, type: 'button', ...(title ? { title } : {}) }, label);
  b.disabled = !!state?.busy;
  b.addEventListener('click', onClick);
  return b;
}

function params(): SamplingParams {
  const v = (id: string) => (document.getElementById(id) as HTMLInputElement | null)?.value ?? '';
  const p: SamplingParams = {
    n: Number(v('n')) || 1,
    maxTokens: Number(v('max-tokens')) || 256,
    stream: (document.getElementById('stream') as HTMLInputElement | null)?.checked ?? true,
  };
  if (v('top-p')) p.topP = Number(v('top-p'));
  if (v('temperature')) p.temperature = Number(v('temperature'));
  return p;
}

function header(s: PlaygroundState, t: Record<string, string>): HTMLElement {
  const h = el('header', { class: 'bar' });
  if (!s.explorerUrl) {
    h.append(
      el('span', { class: 'muted' }, t.notConnected),
      button(t.connect, 'primary', () => post({ type: 'connect' })),
    );
    return h;
  }
  const sel = el('select', { id: 'model', title: t.model });
  for (const m of s.models) {
    const o = el('option', { value: m }, m);
    if (m === s.model) o.selected = true;
    sel.append(o);
  }
  sel.addEventListener('change', () => post({ type: 'selectModel', model: sel.value }));
  h.append(el('code', { class: 'url' }, s.explorerUrl), sel);
  const m = s.metrics;
  const counter = (id: string, label: string, value: number | string) => el('span', { class: 'counter', id }, el('b', {}, String(value)), ' ', label);
  if (m) {
    h.append(counter('m-total', t.totalExp, m.totalExperiences), counter('m-ready', t.readyExp, m.readyExperiences), counter('m-step', t.step, m.exploreStep));
    for (const e of m.engines) h.append(el('span', { class: 'counter engine' }, `${t.engine} ${e.index}: ${e.requests} ${t.requests}, v${e.modelVersion}`));
  }
  h.append(button(t.refresh, 'ghost', () => post({ type: 'refreshMetrics' })));
  if (s.canReward) h.append(button(t.commit, 'primary', () => post({ type: 'commit' }), t.commit));
  else h.append(el('span', { class: 'warn' }, t.noReward));
  return h;
}

function feedbackFor(s: PlaygroundState, msgId: string) {
  return s.feedback.find((f) => f.msgIds.includes(msgId));
}

function assistantTurn(s: PlaygroundState, t: Record<string, string>, turn: Turn & { kind: 'assistant' }, ti: number): HTMLElement {
  const box = el('div', { class: 'turn assistant' });
  const alts = el('div', { class: 'alts' });
  turn.alternatives.forEach((a, ai) => {
    const fb = feedbackFor(s, a.msgId);
    const card = el('div', { class: `alt${turn.chosen === ai ? ' chosen' : ''}`, 'data-msg-id': a.msgId });
    card.append(el('div', { class: 'content' }, a.content || (a.toolCalls ? '' : '…')));
    for (const c of a.toolCalls ?? []) card.append(el('pre', { class: 'tool-call' }, `${c.name}(${c.arguments})`));
    const meta = [`${a.msgId}`, `${t.latency} ${a.latencyMs} ms`];
    if (a.completionTokens !== undefined) meta.push(`${t.tokens} ${a.promptTokens ?? '?'}+${a.completionTokens}`);
    if (a.modelVersion !== undefined) meta.push(`${t.version} ${a.modelVersion}`);
    card.append(el('div', { class: 'meta' }, meta.join(' · ')));
    const acts = el('div', { class: 'actions' });
    if (fb) {
      const label = fb.state === 'sent' ? t.sent : fb.state === 'failed' ? t.unsent : t.sending;
      acts.append(el('span', { class: `fb ${fb.state}`, title: fb.error ?? '' }, `${t.score} ${fb.reward} · ${label}`));
      if (fb.state === 'failed') acts.append(button(t.retry, 'ghost retry', () => post({ type: 'retry', feedbackId: fb.id })));
    } else if (s.canReward) {
      acts.append(
        button(t.good, 'up', () => post({ type: 'reward', turn: ti, alt: ai, reward: 1, source: 'thumb' }), t.thumbUp),
        button(t.bad, 'down', () => post({ type: 'reward', turn: ti, alt: ai, reward: 0, source: 'thumb' }), t.thumbDown),
      );
      const num = el('input', { type: 'number', step: '0.1', class: 'score', 'aria-label': t.score, value: '' });
      acts.append(
        num,
        button(t.sendScore, 'ghost', () => num.value !== '' && post({ type: 'reward', turn: ti, alt: ai, reward: Number(num.value), source: 'score' })),
      );
      if (turn.alternatives.length > 1 && turn.chosen === undefined) acts.append(button(t.choose, 'choose', () => post({ type: 'choose', turn: ti, alt: ai })));
    }
    if (turn.chosen === ai) acts.append(el('span', { class: 'badge' }, t.chosen));
    acts.append(button(t.showTokens, 'ghost show-tokens', () => post({ type: 'tokens', turn: ti, alt: ai }), t.showTokensTitle));
    card.append(acts);
    alts.append(card);
  });
  for (const [k, text] of streaming) {
    const [st, sa] = k.split(':').map(Number);
    if (st === ti && sa >= turn.alternatives.length) alts.append(el('div', { class: 'alt streaming' }, el('div', { class: 'content' }, text)));
  }
  box.append(el('div', { class: 'who' }, `${t.assistant} · ${t.task} ${turn.taskId}`), alts);
  if (turn.error) box.append(el('div', { class: 'error' }, turn.error));
  const foot = el(
    'div',
    { class: 'turn-actions' },
    button(t.regenerate, 'ghost regenerate', () => post({ type: 'regenerate', turn: ti })),
  );
  if (s.canReward && turn.alternatives.length > 1 && !turn.alternatives.some((a) => feedbackFor(s, a.msgId))) {
    foot.append(button(t.rewardGroup, 'ghost reward-group', () => post({ type: 'reward', turn: ti, reward: 1, source: 'thumb' }), t.rewardGroupTitle));
  }
  box.append(foot);
  return box;
}

function composer(s: PlaygroundState, t: Record<string, string>): HTMLElement {
  const f = el('form', { class: 'composer' });
  const input = el('textarea', { id: 'input', rows: '3', placeholder: t.placeholder });
  input.value = vscode.getState()?.draft ?? '';
  input.addEventListener('input', () => vscode.setState({ draft: input.value }));
  const p = s.params;
  const num = (id: string, label: string, value: string, attrs: Record<string, string> = {}) =>
    el('label', {}, `${label} `, el('input', { id, type: 'number', value, ...attrs }));
  const stream = el('input', { id: 'stream', type: 'checkbox' });
  stream.checked = p.stream;
  const opts = el(
    'div',
    { class: 'params' },
    num('n', t.alternatives, String(p.n), { min: '1', max: '8' }),
    num('max-tokens', t.maxTokens, String(p.maxTokens), { min: '1' }),
    num('top-p', t.topP, p.topP !== undefined ? String(p.topP) : '', { step: '0.05', min: '0', max: '1' }),
    el(
      'label',
      { title: t.temperatureNote },
      `${t.temperature}* `,
      el('input', { id: 'temperature', type: 'number', step: '0.1', value: p.temperature !== undefined ? String(p.temperature) : '' }),
    ),
    el('label', {}, stream, ` ${t.stream}`),
    button(s.toolCount ? t.toolsCount.replace('{0}', String(s.toolCount)) : t.tools, 'ghost', () => post({ type: 'pickTools' })),
  );
  const send = button(t.send, 'primary', () => undefined);
  send.id = 'send';
  send.type = 'submit';
  f.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!input.value.trim() || state?.busy) return;
    post({ type: 'send', text: input.value, params: params() });
    input.value = '';
    vscode.setState({ draft: '' });
  });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) f.requestSubmit();
  });
  f.append(input, el('div', { class: 'row' }, opts, send), el('div', { class: 'muted note' }, `* ${t.temperatureNote}`));
  return f;
}

function render(): void {
  const s = state;
  if (!s) return;
  const t = s.strings;
  const focusId = document.activeElement?.id;
  const inputs = new Map<string, string>();
  for (const i of Array.from(root.querySelectorAll<HTMLInputElement>('.params input'))) inputs.set(i.id, i.type === 'checkbox' ? String(i.checked) : i.value);
  root.replaceChildren();
  root.append(header(s, t));
  if (s.error) root.append(el('div', { class: 'error banner', role: 'alert' }, s.error));
  if (s.notice) root.append(el('div', { class: 'notice banner', role: 'status' }, s.notice));
  const unsent = s.feedback.filter((f) => f.state === 'failed');
  if (unsent.length)
    root.append(
      el(
        'div',
        { class: 'warn banner' },
        `${unsent.length} ${t.unsent} `,
        button(t.retry, 'ghost retry-all', () => post({ type: 'retry' })),
      ),
    );
  const side = el(
    'aside',
    { class: 'side' },
    el('h3', {}, t.conversations),
    button(t.newConversation, 'ghost', () => post({ type: 'newConversation' })),
  );
  for (const c of s.conversations) {
    const a = el('a', { href: '#', class: c.id === s.conversation.id ? 'current' : '' }, c.title || c.id);
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'openConversation', id: c.id });
    });
    side.append(a);
  }
  const chat = el('section', { class: 'chat' });
  s.conversation.turns.forEach((turn, ti) => {
    if (turn.kind === 'user') chat.append(el('div', { class: 'turn user' }, el('div', { class: 'who' }, t.you), el('div', { class: 'content' }, turn.content)));
    else chat.append(assistantTurn(s, t, turn, ti));
  });
  if (s.explorerUrl) chat.append(composer(s, t));
  root.append(el('main', {}, side, chat));
  for (const [id, v] of inputs) {
    const i = document.getElementById(id) as HTMLInputElement | null;
    if (!i) continue;
    if (i.type === 'checkbox') i.checked = v === 'true';
    else i.value = v;
  }
  if (focusId) document.getElementById(focusId)?.focus();
}

/** One reply's tokens in a panel over the chat (outside #root: a state redraw keeps it). */
let tokens: { box: HTMLElement; title: HTMLElement; view: TokenView } | undefined;
function showTokens(m: HostToWebview & { type: 'tokens' }): void {
  if (!tokens) {
    const view = new TokenView({ strings: m.strings });
    const title = el('span', { class: 'tokens-title' });
    const close = el('button', { class: 'ghost tokens-close', type: 'button' }, state?.strings.close ?? '×');
    const box = el('div', { class: 'tokens-panel', role: 'dialog' }, el('div', { class: 'tokens-head' }, title, close), view.element);
    close.addEventListener('click', () => (box.hidden = true));
    document.body.append(box);
    tokens = { box, title, view };
  }
  const turn = state?.conversation.turns[m.turn];
  const msgId = turn?.kind === 'assistant' ? turn.alternatives[m.alt]?.msgId : undefined;
  tokens.title.textContent = `${state?.strings.showTokens ?? ''} · ${msgId ?? ''}`;
  tokens.box.hidden = false;
  tokens.view.show(fromWire(m.experience), m.notes);
}

window.addEventListener('message', (ev: MessageEvent<HostToWebview>) => {
  const m = ev.data;
  if (m.type === 'state') {
    state = m.state;
    // a finished alternative replaces its streamed text
    for (const k of Array.from(streaming.keys())) {
      const [ti, ai] = k.split(':').map(Number);
      const turn = state.conversation.turns[ti];
      if (!state.busy || (turn?.kind === 'assistant' && turn.alternatives.length > ai)) streaming.delete(k);
    }
    render();
  } else if (m.type === 'tokens') {
    showTokens(m);
  } else if (m.type === 'delta') {
    const k = `${m.turn}:${m.alt}`;
    streaming.set(k, (streaming.get(k) ?? '') + m.text);
    render();
  }
});

post({ type: 'ready' });
