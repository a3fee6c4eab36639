// The views of the metrics webview side by side ("Charts | Pipeline | …"): a small list each
// view joins with its elements; choosing one shows its elements and hides the others'. The
// choice is kept across a reload of the webview.
export interface SwitchView {
  id: string;
  label: string;
  /** What the view shows (hidden while another view is chosen). */
  els: HTMLElement[];
  /** Told when the view is shown or hidden. */
  shown?(visible: boolean): void;
}

export class ViewSwitch {
  readonly el: HTMLElement;
  private readonly views: { view: SwitchView; button: HTMLButtonElement }[] = [];
  private current = '';

  constructor(private readonly chosen: (id: string) => void) {
    this.el = document.createElement('div');
    this.el.className = 'view-switch';
    this.el.setAttribute('role', 'tablist');
  }

  add(view: SwitchView): void {
    const button = document.createElement('button');
    button.className = 'view-tab';
    button.dataset.view = view.id;
    button.setAttribute('role', 'tab');
    button.textContent = view.label;
    button.addEventListener('click', () => this.select(view.id));
    this.views.push({ view, button });
    this.el.append(button);
    if (!this.current) this.select(view.id, false);
    else for (const e of view.els) e.hidden = true;
  }

  label(id: string, text: string): void {
    const v = this.views.find((x) => x.view.id === id);
    if (v) v.button.textContent = text;
  }

  get selected(): string {
    return this.current;
  }

  select(id: string, tell = true): void {
    if (!this.views.some((v) => v.view.id === id) || id === this.current) return;
    this.current = id;
    for (const { view, button } of this.views) {
      const on = view.id === id;
      button.classList.toggle('selected', on);
      button.setAttribute('aria-selected', String(on));
      for (const e of view.els) e.hidden = !on;
    }
    for (const { view } of this.views) view.shown?.(view.id === id);
    if (tell) this.chosen(id);
  }
}
