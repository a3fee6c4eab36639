// The controls above the charts: tag filter (regex), smoothing slider, x axis, log scale,
// min/max band.
import { UiStrings } from '../protocol/ui-strings';
import { SMOOTHING_RANGE, VIEW_OPTIONS, ViewOptions, X_AXES, X_AXIS_MODES, XAxisMode } from '../protocol/view-options';
import { textWidth } from './format';

export class Toolbar {
  readonly el: HTMLElement;
  private readonly filter: HTMLInputElement;
  private readonly filterMsg: HTMLElement;
  private readonly smoothing: HTMLInputElement;
  private readonly smoothingOut: HTMLOutputElement;
  private readonly xAxis: HTMLSelectElement;
  private readonly log: HTMLInputElement;
  private readonly band: HTMLInputElement;
  private filterTimer: number | undefined;

  constructor(
    s: UiStrings,
    o: ViewOptions,
    private readonly change: (o: Partial<ViewOptions>) => void,
  ) {
    this.el = document.createElement('div');
    this.el.className = 'toolbar';
    this.filter = document.createElement('input');
    this.filter.type = 'search';
    this.filter.className = 'filter';
    this.filter.placeholder = s[VIEW_OPTIONS.filter.label];
    // wide enough for its placeholder in any language ("Filter tags (regular expression" was cut)
    this.filter.style.minWidth = textWidth(s[VIEW_OPTIONS.filter.label]);
    this.filter.setAttribute('aria-label', s[VIEW_OPTIONS.filter.label]);
    this.filter.addEventListener('input', () => {
      window.clearTimeout(this.filterTimer);
      this.filterTimer = window.setTimeout(() => this.change({ filter: this.filter.value }), 150);
    });
    this.filterMsg = document.createElement('span');
    this.filterMsg.className = 'filter-error';
    this.filterMsg.textContent = s.invalidFilter;
    this.filterMsg.hidden = true;

    const sm = document.createElement('label');
    sm.className = 'smoothing';
    sm.append(s[VIEW_OPTIONS.smoothing.label], ' ');
    this.smoothing = document.createElement('input');
    this.smoothing.type = 'range';
    this.smoothing.min = String(SMOOTHING_RANGE.min);
    this.smoothing.max = String(SMOOTHING_RANGE.sliderMax);
    this.smoothing.step = String(SMOOTHING_RANGE.sliderStep);
    this.smoothingOut = document.createElement('output');
    this.smoothing.addEventListener('input', () => (this.smoothingOut.value = Number(this.smoothing.value).toFixed(2)));
    this.smoothing.addEventListener('change', () => this.change({ smoothing: Number(this.smoothing.value) }));
    sm.append(this.smoothing, this.smoothingOut);

    const xl = document.createElement('label');
    xl.append(s[VIEW_OPTIONS.xAxis.label], ' ');
    this.xAxis = document.createElement('select');
    for (const v of X_AXIS_MODES) {
      const opt = document.createElement('option');
      opt.value = v;
      opt.textContent = s[X_AXES[v].label];
      this.xAxis.append(opt);
    }
    this.xAxis.addEventListener('change', () => this.change({ xAxis: this.xAxis.value as XAxisMode }));
    xl.append(this.xAxis);

    const check = (key: 'logScale' | 'band') => {
      const l = document.createElement('label');
      const c = document.createElement('input');
      c.type = 'checkbox';
      c.addEventListener('change', () => this.change({ [key]: c.checked }));
      l.append(c, ' ', s[VIEW_OPTIONS[key].label]);
      return { l, c };
    };
    const lg = check('logScale');
    const bd = check('band');
    this.log = lg.c;
    this.band = bd.c;
    this.el.append(this.filter, this.filterMsg, sm, xl, lg.l, bd.l);
    this.set(o);
  }

  set(o: ViewOptions): void {
    if (document.activeElement !== this.filter) this.filter.value = o.filter;
    this.smoothing.value = String(o.smoothing);
    this.smoothingOut.value = o.smoothing.toFixed(2);
    this.xAxis.value = o.xAxis;
    this.log.checked = o.logScale;
    this.band.checked = o.band;
  }

  invalidFilter(bad: boolean): void {
    this.filter.classList.toggle('invalid', bad);
    this.filterMsg.hidden = !bad;
  }
}
