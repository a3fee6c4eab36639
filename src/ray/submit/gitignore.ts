// .gitignore matching (gitignore(5)): per-directory files, `!` negation, anchored patterns,
// trailing `/` for directories, `*`, `?`, `[…]` and `**`. Used to decide what goes into a Ray
// working_dir package, so a checkpoint folder or a venv does not get uploaded by accident.

interface Rule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

function globToRegExp(glob: string): string {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          // `**/` any number of directories; trailing `/**` everything inside
          if (i + 2 === glob.length) re += '.*';
          else re += '(?:.*/)?';
          i += 2;
          continue;
        }
      }
      re += '[^/]*';
      while (glob[i + 1] === '*') i++;
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let cls = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        re += `[${cls}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < glob.length) re += '\\' + glob[++i];
    else re += /[.+^${}()|\]\\/]/.test(c) ? '\\' + c : c;
  }
  return re;
}

/** Parses one .gitignore's text; `base` is its directory relative to the root ('' for the root). */
export function parseGitignore(text: string, base = ''): Rule[] {
  const rules: Rule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    line = line.replace(/(?<!\\)\s+$/, '');
    if (!line) continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith('/')) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const prefix = base ? base.replace(/[.+^${}()|[\]\\]/g, '\\$&') + '/' : '';
    const body = globToRegExp(line);
    const re = new RegExp(`^${prefix}${anchored ? '' : '(?:.*/)?'}${body}$`);
    rules.push({ re, negate, dirOnly });
  }
  return rules;
}

/** A stack of rules; the last matching rule wins, as in git. */
export class IgnoreMatcher {
  private readonly rules: Rule[] = [];

  add(rules: Rule[]): IgnoreMatcher {
    const m = new IgnoreMatcher();
    m.rules.push(...this.rules, ...rules);
    return m;
  }

  /** `rel` is '/'-separated, relative to the root. */
  ignored(rel: string, isDir: boolean): boolean {
    let result = false;
    for (const r of this.rules) {
      if (r.dirOnly && !isDir) continue;
      if (r.re.test(rel)) result = !r.negate;
    }
    return result;
  }
}
