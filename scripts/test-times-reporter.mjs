// A node:test reporter for scripts/test.mjs: one line per test file, `<seconds>\t<file>`, the time
// of its top-level tests (node 20 reports a file's tests flat, with no entry for the file itself).
export default async function* fileTimes(source) {
  const secs = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      secs.set(event.data.file, (secs.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0) / 1000);
    }
  }
  for (const [file, s] of secs) yield `${s.toFixed(3)}\t${file}\n`;
}
