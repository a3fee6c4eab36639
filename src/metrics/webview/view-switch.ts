// The switch between the metrics view's views (the charts, the Tasks view, …): one button per
// entry of a small list, the chosen one kept across reloads of the webview. A view joins by
// being added to the list main.ts builds; each says what to show and what to do when chosen.
import { saveState, savedState } from './webview-api';

export interface ViewEntry {
  id: string;
  label: string;
  /** The view's elements: shown while it is chosen, hidden otherwise. */
  elements: () => HTMLElement[];
  /** Called when the view is chosen (true) or left (false). */
  chosen?: (on: boolean) => void;
}

export class ViewSwitch {
  readonly el: HTMLElement = document.createElement('nav');
  private current = '';
  private readonly buttons = new Map<string, HTMLButtonElement>();

  constructor(private readonly views: ViewEntry[]) {
    this.el.className = 'view-switch';
    this.el.setAttribute('role', 'tablist');
    for (const v of views) {
      const b = document.createElement('button');
      b.textContent = v.label;
      b.dataset.view = v.id;
      b.setAttribute('role', 'tab');
      b.addEventListener('click', () => this.choose(v.id));
      this.buttons.set(v.id, b);
      this.el.append(b);
    }
  }

  /** Shows the view kept across a reload, or the first. */
  start(): void {
    const kept = savedState()?.view;
    this.choose(this.views.some((v) => v.id === kept) ? kept! : this.views[0].id);
  }

  get chosen(): string {
    return this.current;
  }

  choose(id: string): void {
    const before = this.current;
    this.current = id;
    saveState({ view: id });
    for (const v of this.views) {
      const on = v.id === id;
      for (const e of v.elements()) e.hidden = !on;
      this.buttons.get(v.id)!.setAttribute('aria-selected', String(on));
      if (on !== (v.id === before)) v.chosen?.(on);
    }
  }
}
