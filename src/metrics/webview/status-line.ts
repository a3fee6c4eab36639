// The line above the charts with one chip per relay endpoint (its state and why), and the
// empty state shown while there are no charts: what to do next (connect, or start the demo).
import type { UiStrings } from '../protocol/ui-strings';
import type { EndpointStatus } from '../protocol/view-protocol';

export class StatusLine {
  readonly el: HTMLElement;
  readonly emptyEl: HTMLElement;

  constructor(
    private readonly strings: () => UiStrings,
    /** The empty state's buttons: connect to a training run, or start the demo. */
    private readonly command: (c: 'connect' | 'demo') => void,
  ) {
    this.el = document.createElement('div');
    this.el.className = 'status';
    this.el.setAttribute('role', 'status');
    this.emptyEl = document.createElement('div');
    this.emptyEl.className = 'empty-state';
  }

  render(status: EndpointStatus[], hasCharts: boolean): void {
    const s = this.strings();
    const word: Record<EndpointStatus['state'], string> = {
      connecting: s.stateConnecting,
      backfilling: s.stateBackfilling,
      live: s.stateLive,
      stale: s.stateStale,
      error: s.stateError,
      stopped: s.stateStopped,
      finished: s.stateFinished,
    };
    const chips = status.map((e) => {
      const chip = document.createElement('span');
      chip.className = `chip state-${e.state}`;
      chip.dataset.endpoint = e.id;
      chip.dataset.state = e.state;
      chip.title = `${e.target}${e.detail ? `\n${e.detail}` : ''}`;
      chip.textContent = `${e.name}: ${word[e.state]}${e.detail && e.state !== 'live' ? ` — ${e.detail}` : ''}`;
      return chip;
    });
    this.el.replaceChildren(...chips);
    this.emptyEl.hidden = hasCharts;
    if (!hasCharts) this.renderEmpty(status.length > 0);
  }

  private renderEmpty(connected: boolean): void {
    const s = this.strings();
    const p = document.createElement('p');
    p.textContent = connected ? s.noData : s.noEndpoints;
    const b = document.createElement('button');
    b.textContent = s.connect;
    b.addEventListener('click', () => this.command('connect'));
    // Nothing to connect to yet? The demo run shows what the view does, one click away.
    const demo = document.createElement('button');
    demo.className = 'demo';
    demo.textContent = s.startDemo;
    demo.addEventListener('click', () => this.command('demo'));
    this.emptyEl.replaceChildren(p, b, demo);
  }
}
