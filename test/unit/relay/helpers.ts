// Pure pieces shared by the relay unit tests (no process, no socket): temp folders and the
// seeded generator. The process and network helpers live in test/component/relay/helpers.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function tmpDir(prefix = 'relay-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export { rng } from '../../harness/rng';
