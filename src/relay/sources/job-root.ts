// The relay's root (the job dir or logdir) is the boundary of everything it reads and writes:
// each path is resolved (realpath: every symbolic link followed) and must stay inside the root's
// own real path, so that a symlinked `log/`, `buffer/` or `*_server_url.txt` pointing elsewhere
// is refused — with one report per path, not silently followed. Files are opened at the path
// that was checked, with O_NOFOLLOW, so a link swapped in after the check is not followed either.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A path that resolves outside the relay's root. */
export class OutsideRoot extends Error {
  constructor(
    readonly file: string,
    readonly target: string,
  ) {
    super(`${file} resolves to ${target}, outside the relay's directory: refused`);
  }
}

export class JobRoot {
  /** The root's real path. */
  readonly real: string;
  /** Paths refused so far (each reported once). */
  private readonly refused = new Set<string>();

  constructor(readonly dir: string) {
    this.real = fs.realpathSync(dir);
  }

  /** The real path of `p` when it exists and stays inside the root; throws OutsideRoot, or fs errors (ENOENT). */
  resolve(p: string): string {
    const real = fs.realpathSync(p);
    if (real !== this.real && !real.startsWith(this.real + path.sep)) throw new OutsideRoot(p, real);
    return real;
  }

  /** Whether `p` exists and stays inside the root (false for a path that does not exist). */
  contains(p: string): boolean {
    try {
      this.resolve(p);
      return true;
    } catch {
      return false;
    }
  }

  /** Opens `p` read-only when it stays inside the root; throws OutsideRoot or an fs error. */
  open(p: string): number {
    return fs.openSync(this.resolve(p), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  }

  /**
   * Whether `p` may be used: true inside the root (or when it does not exist yet); false when it
   * leads outside, which is reported through `report` the first time.
   */
  allows(p: string, report: (message: string) => void): boolean {
    try {
      this.resolve(p);
      return true;
    } catch (e) {
      if (!(e instanceof OutsideRoot)) return true; // not there (yet): nothing to follow
      if (!this.refused.has(p)) {
        this.refused.add(p);
        report(`relay: refusing ${path.relative(this.dir, p) || p}: it resolves to ${e.target}, outside ${this.dir}`);
      }
      return false;
    }
  }
}
