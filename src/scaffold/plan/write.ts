// Applies a GeneratePlan. Never overwrites: the project folder is created exclusively and every
// file with the 'wx' flag; launch.json is rewritten only if it still has the text the plan merged
// into (atomically, via a temporary file). Any failure removes what this run created, so a
// retry starts clean and nothing of the user's is lost.
import * as fs from 'fs';
import * as path from 'path';
import type { L10n } from '../../base/l10n';
import { ScaffoldError, ScaffoldWriteError } from './errors';
import type { GeneratePlan } from './plan';

export interface WriteResult {
  projectDir: string;
  /** Absolute paths of the files written (launch.json included when it changed). */
  written: string[];
  launchNames: string[];
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function writePlan(plan: GeneratePlan, l10n: L10n): WriteResult {
  const createdDirs: string[] = []; // roots of directory trees this run created, removed on failure
  const written: string[] = [];
  let launchWritten = false;
  try {
    if (plan.createTarget) {
      const first = fs.mkdirSync(plan.target, { recursive: true });
      if (first) createdDirs.push(first);
    }
    try {
      fs.mkdirSync(plan.projectDir); // not recursive: fails if the folder appeared meanwhile
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new ScaffoldError(l10n.t('{0} already exists: choose another name or folder. Nothing was changed.', plan.projectDir));
      }
      throw e;
    }
    createdDirs.push(plan.projectDir);
    for (const f of plan.files) {
      fs.mkdirSync(path.dirname(f.path), { recursive: true });
      fs.writeFileSync(f.path, f.content, { flag: 'wx' });
      written.push(f.path);
    }
    if (plan.launch) {
      const { file, before, text } = plan.launch;
      if (read(file) !== before) {
        throw new ScaffoldError(l10n.t('{0} changed while the workflow was being created; run the command again.', file));
      }
      const vscodeDir = path.dirname(file);
      if (!fs.existsSync(vscodeDir)) {
        fs.mkdirSync(vscodeDir, { recursive: true });
        createdDirs.push(vscodeDir);
      }
      if (before === undefined) {
        fs.writeFileSync(file, text, { flag: 'wx' });
      } else {
        const tmp = `${file}.${process.pid}.agentrl-tmp`;
        fs.writeFileSync(tmp, text, { flag: 'wx' });
        fs.renameSync(tmp, file);
      }
      launchWritten = true;
      written.push(file);
    }
    return { projectDir: plan.projectDir, written, launchNames: plan.launch?.names ?? [] };
  } catch (e) {
    for (const dir of createdDirs.reverse()) fs.rmSync(dir, { recursive: true, force: true });
    if (plan.launch && !launchWritten) fs.rmSync(`${plan.launch.file}.${process.pid}.agentrl-tmp`, { force: true });
    if (e instanceof ScaffoldError) throw e;
    throw new ScaffoldWriteError(l10n.t('Could not create the project: {0}. Nothing was kept.', (e as Error).message));
  }
}
