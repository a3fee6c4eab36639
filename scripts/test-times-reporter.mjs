// node:test's TAP reporter plus, before each top-level test's result, a TAP comment
// `# time <seconds> <file>` (node 20 reports a file's tests flat, with no entry for the file
// itself); scripts/test.mjs sums them per file. In the TAP file, written as tests end, so a run
// its time box kills still says where the time went. (One reporter, not a third one beside spec
// and tap: node warns about listeners past two.)
import { tap } from 'node:test/reporters';

export default async function* tapWithTimes(source) {
  const pending = [];
  async function* watched() {
    for await (const event of source) {
      if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
        pending.push(`# time ${((event.data.details?.duration_ms ?? 0) / 1000).toFixed(3)} ${event.data.file}\n`);
      }
      yield event;
    }
  }
  for await (const chunk of tap(watched())) {
    while (pending.length) yield pending.shift();
    yield chunk;
  }
}
