// JSON read by tests: the test names the shape it expects and asserts on the fields it reads.
import * as fs from 'node:fs';

/** `JSON.parse(text)` typed as `T`. */
export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/** A JSON file's content typed as `T`. */
export function readJson<T>(file: string): T {
  return parseJson<T>(fs.readFileSync(file, 'utf8'));
}
