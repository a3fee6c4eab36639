// Colours come from the VS Code theme (CSS variables VS Code sets on the webview's <html>),
// so charts follow light, dark and high-contrast themes; re-read when the theme changes.

export interface Theme {
  kind: 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';
  foreground: string;
  muted: string;
  grid: string;
  background: string;
  palette: string[];
  font: string;
}

const PALETTE_VARS = [
  '--vscode-charts-blue',
  '--vscode-charts-orange',
  '--vscode-charts-green',
  '--vscode-charts-purple',
  '--vscode-charts-red',
  '--vscode-charts-yellow',
  '--vscode-terminal-ansiCyan',
  '--vscode-terminal-ansiMagenta',
];
const FALLBACK = ['#3794ff', '#d18616', '#89d185', '#b180d7', '#f14c4c', '#cca700', '#29b8db', '#bc3fbc'];

export function readTheme(): Theme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, dflt: string) => css.getPropertyValue(name).trim() || dflt;
  const cls = document.body.classList;
  const kind: Theme['kind'] = cls.contains('vscode-high-contrast-light')
    ? 'high-contrast-light'
    : cls.contains('vscode-high-contrast')
      ? 'high-contrast'
      : cls.contains('vscode-light')
        ? 'light'
        : 'dark';
  const fg = v('--vscode-editor-foreground', v('--vscode-foreground', kind === 'light' ? '#333' : '#ccc'));
  return {
    kind,
    foreground: v('--vscode-charts-foreground', fg),
    muted: v('--vscode-descriptionForeground', fg),
    grid: v('--vscode-charts-lines', kind === 'light' ? 'rgba(0,0,0,0.12)' : 'rgba(255,255,255,0.12)'),
    background: v('--vscode-editor-background', kind === 'light' ? '#ffffff' : '#1e1e1e'),
    palette: PALETTE_VARS.map((name, i) => v(name, FALLBACK[i])),
    font: `${v('--vscode-editor-font-size', '12px').replace(/^(\d+)$/, '$1px')} ${v('--vscode-font-family', 'sans-serif')}`,
  };
}

export function seriesColor(t: Theme, index: number): string {
  return t.palette[((index % t.palette.length) + t.palette.length) % t.palette.length];
}

/** The same colour with alpha (for the min/max band); accepts #rgb, #rrggbb, rgb(). */
export function withAlpha(color: string, alpha: number): string {
  const c = color.trim();
  let m = c.match(/^#([0-9a-f]{3,8})$/i);
  if (m) {
    let h = m[1];
    if (h.length === 3 || h.length === 4) h = [...h].map((x) => x + x).join('');
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
    return `rgba(${r},${g},${b},${alpha})`;
  }
  m = c.match(/^rgba?\(([^)]+)\)$/i);
  if (m) {
    const [r, g, b] = m[1].split(',').map((s) => s.trim());
    return `rgba(${r},${g},${b},${alpha})`;
  }
  return c;
}

/** Calls back when VS Code switches theme (it changes the body's classes). */
export function onThemeChange(cb: () => void): void {
  new MutationObserver(() => cb()).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}
