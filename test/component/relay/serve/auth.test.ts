// The edges of the relay's auth, against the real relay process (any runtime: test/harness/relay.ts):
// a credential anywhere in the URL — another separator, an escaped name, another name, the path —
// is refused like `?token=`, even with the right header; a token file must hold exactly one
// token, or the relay does not start. The rules themselves: test/unit/relay/serve/auth.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relaysUnderTest } from '../../../harness/relay';
import { WireClient, WireRefused, helloFrom } from '../../../harness/relay-wire';
import { tmpDir } from '../helpers';

const TOKEN = 's3cret-token-value-42';

for (const subject of relaysUnderTest())
  describe(`adversarial: auth edges [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    after(() => {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    test('a credential-looking URL is refused whatever its form, even with the right header; the plain URL is served', { timeout: 60_000 }, async () => {
      const dir = tmpDir();
      dirs.push(dir);
      const tokenFile = path.join(dir, 'token');
      fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
      const relay = await launchRelay(subject.command(), ['--logdir', dir, '--token-file', tokenFile]);
      try {
        const paths = [
          `/?token=${TOKEN}`,
          `/?a=1;token=${TOKEN}`,
          `/?%74oken=${TOKEN}`,
          `/?%2574oken=${TOKEN}`,
          `/?bearer=${TOKEN}`,
          `/token=${TOKEN}`,
          `/?access_token=${TOKEN}`,
          `/?X-Api-Key=${TOKEN}`,
          `/?password=${TOKEN}`,
          `/relay/auth=${TOKEN}/`,
        ];
        for (const p of paths) {
          const refused = await WireClient.connect(relay.url, { token: TOKEN, path: p }).then(
            (c) => {
              c.close();
            },
            (e: unknown) => e,
          );
          assert.ok(refused instanceof WireRefused, `${p} was accepted`);
          assert.equal(refused.status, 400, p);
        }
        assert.ok(!relay.stderr().includes(TOKEN), 'the relay never logs the token');
        const ok = await helloFrom(relay.url, { token: TOKEN, path: '/?run=a' });
        ok.close();
      } finally {
        await relay.stop();
      }
    });

    test('a token file that is not exactly one token stops the relay at start with a clear error', { timeout: 60_000 }, async () => {
      const dir = tmpDir();
      dirs.push(dir);
      for (const [name, text] of [
        ['spaced', 'abc def\n'],
        ['two-lines', 'abc\ndef\n'],
        ['empty', '\n\n'],
        ['tab', 'abc\tdef'],
      ]) {
        const file = path.join(dir, name);
        fs.writeFileSync(file, text, { mode: 0o600 });
        const err = await launchRelay(subject.command(), ['--logdir', dir, '--token-file', file]).then(
          async (r) => {
            await r.stop();
          },
          (e: Error) => e,
        );
        assert.ok(err, `the relay started with a token file holding ${JSON.stringify(text)}`);
        assert.match(err.message, /exited 2/, name);
        assert.match(err.message, /token/i, name);
        assert.doesNotMatch(err.message, /abc|def/, `${name}: the error does not echo the file's content`);
      }
      // Surrounding blank space and a final line break are fine.
      const good = path.join(dir, 'good');
      fs.writeFileSync(good, `\n  ${TOKEN}  \n`, { mode: 0o600 });
      const relay = await launchRelay(subject.command(), ['--logdir', dir, '--token-file', good]);
      try {
        (await helloFrom(relay.url, { token: TOKEN })).close();
      } finally {
        await relay.stop();
      }
    });
  });
