// The run's tokenizer through @huggingface/tokenizers on the fixture model's real tokenizer: the
// texts of the tokens, joined, are exactly the decoded text — for characters that byte-level BPE
// splits across tokens too (those tokens are marked partial, with their bytes) — and specials are flagged.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLAG_PARTIAL, FLAG_SPECIAL } from '../../../src/tokens/experience';
import { backtrackingPatterns, createTokenizer, TokenizerError } from '../../../src/tokens/tokenizer';
import { rng } from '../../harness/rng';
import { skipNoTokenizer, tinyTokenizer, tinyTokenizerDir } from '../../harness/tiny-tokenizer';
import * as fs from 'node:fs';
import * as path from 'node:path';

const piecesOf = (s: string): string[] => {
  const tok = tinyTokenizer();
  const t = tok.tokenTexts(tok.encode(s));
  return Array.from({ length: t.offsets.length - 1 }, (_, i) => t.joined.slice(t.offsets[i], t.offsets[i + 1]));
};

test("token texts of plain text are the tokens' own text, joined exactly", { skip: skipNoTokenizer }, () => {
  assert.deepEqual(piecesOf('It is sunny and 21 degrees C in Paris.'), ['It', ' is', ' sunny', ' and', ' ', '2', '1', ' degrees', ' C', ' in', ' Paris', '.']);
});

test(
  'a character split across byte-level tokens goes to the token that completes it; the others are partial, with their bytes',
  { skip: skipNoTokenizer },
  () => {
    const tok = tinyTokenizer();
    const ids = tok.encode('é中🙂');
    const t = tok.tokenTexts(ids);
    assert.equal(t.joined, 'é中🙂');
    // é = c3 a9, 中 = e4 b8 ad, 🙂 = f0 9f 99 82: one byte per token in this 799-token vocabulary
    assert.equal(ids.length, 9);
    const pieces = Array.from({ length: 9 }, (_, i) => t.joined.slice(t.offsets[i], t.offsets[i + 1]));
    assert.deepEqual(pieces, ['', 'é', '', '', '中', '', '', '', '🙂']);
    assert.deepEqual([...t.flags].map((f) => (f & FLAG_PARTIAL ? 'p' : '.')).join(''), 'p.pp.ppp.');
    assert.deepEqual(t.partialBytes, { 0: 'c3', 2: 'e4', 3: 'b8', 5: 'f0', 6: '9f', 7: '99' });
  },
);

test('special tokens are flagged and keep their text; whitespace and newlines are their own text', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const ids = tok.encode('<|im_start|>user\n  hi\n\n<|im_end|>');
  const t = tok.tokenTexts(ids);
  assert.equal(t.joined, '<|im_start|>user\n  hi\n\n<|im_end|>');
  assert.equal(t.flags[0] & FLAG_SPECIAL, FLAG_SPECIAL);
  assert.equal(t.flags[ids.length - 1] & FLAG_SPECIAL, FLAG_SPECIAL);
  assert.equal(t.flags[1] & FLAG_SPECIAL, 0);
  assert.equal(ids[0], 1);
  assert.equal(ids[ids.length - 1], 2);
});

test(
  'fuzz: 300 random strings (ASCII, whitespace, accents, CJK, emoji, specials) — encode/decode round-trips and the texts join exactly',
  { skip: skipNoTokenizer },
  () => {
    const tok = tinyTokenizer();
    const r = rng(25);
    const pool = [
      'a',
      'Z',
      ' ',
      '  ',
      '\n',
      '\t',
      '\r\n',
      '7',
      '42',
      '.',
      '{"',
      '"}',
      'é',
      'ñ',
      'ü',
      '中',
      '文',
      '字',
      '🙂',
      '👍🏽',
      'Ж',
      'ا',
      '<|im_end|>',
      '<|im_start|>',
      'tool_call',
      ' Paris',
      '\u00a0',
      '\ufffd',
    ];
    for (let k = 0; k < 300; k++) {
      let s = '';
      const len = Math.floor(r() * 40);
      for (let i = 0; i < len; i++) s += pool[Math.floor(r() * pool.length)];
      const ids = tok.encode(s);
      assert.equal(tok.decode(ids), s, `round trip of ${JSON.stringify(s)}`);
      const t = tok.tokenTexts(ids);
      assert.equal(t.joined, s, `join of ${JSON.stringify(s)}`);
      assert.equal(t.offsets.length, ids.length + 1);
      for (let i = 0; i < ids.length; i++) {
        const partial = (t.flags[i] & FLAG_PARTIAL) !== 0;
        assert.equal(partial, t.offsets[i] === t.offsets[i + 1] && i in t.partialBytes, `token ${i} of ${JSON.stringify(s)}`);
      }
    }
  },
);

test(
  'fuzz: 500 id sequences of cut characters, stray bytes, specials and byte order marks — the texts join exactly to the decode',
  { skip: skipNoTokenizer },
  () => {
    // Not only what encode gives: characters cut short and followed by others (a 4-byte one cut after
    // 3 bytes, then 中), random ids, specials in the middle of a character — where a text cut at the
    // wrong byte would show.
    const tok = tinyTokenizer();
    const vocab = (JSON.parse(fs.readFileSync(path.join(tinyTokenizerDir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model
      .vocab;
    const size = Object.keys(vocab).length;
    const chunks = ['a', ' x', 'é', '中', '🙂', 'Ж', '\ufeff', '<|im_end|>', '\n'].map((c) => Array.from(tok.encode(c)));
    const r = rng(2525);
    for (let k = 0; k < 500; k++) {
      const ids: number[] = [];
      const len = 1 + Math.floor(r() * 30);
      while (ids.length < len) {
        if (r() < 0.1) {
          ids.push(Math.floor(r() * size));
          continue;
        }
        const c = chunks[Math.floor(r() * chunks.length)];
        ids.push(...(r() < 0.4 ? c.slice(0, 1 + Math.floor(r() * c.length)) : c));
      }
      const t = tok.tokenTexts(ids);
      assert.equal(t.joined, tok.decode(ids), `join of ${JSON.stringify(ids)}`);
      assert.equal(t.offsets[ids.length], t.joined.length);
    }
  },
);

test(
  'a token list that ends inside a character keeps the replacement character the decode gives, so the join still equals the decode',
  { skip: skipNoTokenizer },
  () => {
    const tok = tinyTokenizer();
    const ids = tok.encode('a中');
    const cut = ids.subarray(0, ids.length - 1);
    assert.equal(tok.tokenTexts(cut).joined, tok.decode(cut));
    assert.ok(tok.decode(cut).endsWith('\ufffd'));
  },
);

test('a tokenizer.json that is not one gives a TokenizerError naming it', () => {
  assert.throws(
    () => createTokenizer({ hello: 1 }, {}, { name: 'junk' }),
    (e: unknown) => e instanceof TokenizerError && /junk: tokenizer\.json has no "model"/.test(e.message),
  );
  assert.throws(() => createTokenizer(null, {}, { name: 'nil' }), TokenizerError);
  assert.throws(
    () => createTokenizer({ model: { type: 'Nope' } }, {}, { name: 'odd' }),
    (e: unknown) => e instanceof TokenizerError && /odd: the tokenizer could not be built/.test(e.message),
  );
});

test(
  'the chat template comes from tokenizer_config.json (a string, or the "default" of a list) unless a chat_template.jinja is given',
  { skip: skipNoTokenizer },
  () => {
    const json: unknown = JSON.parse(fs.readFileSync(path.join(tinyTokenizerDir, 'tokenizer.json'), 'utf8'));
    assert.equal(createTokenizer(json, { chat_template: 'T1' }, { name: 'x' }).chatTemplate, 'T1');
    assert.equal(
      createTokenizer(
        json,
        {
          chat_template: [
            { name: 'tool_use', template: 'T2' },
            { name: 'default', template: 'T3' },
          ],
        },
        { name: 'x' },
      ).chatTemplate,
      'T3',
    );
    assert.equal(createTokenizer(json, { chat_template: 'T1' }, { name: 'x', chatTemplate: 'J' }).chatTemplate, 'J');
    assert.equal(createTokenizer(json, {}, { name: 'x' }).chatTemplate, undefined);
    assert.deepEqual(createTokenizer(json, { eos_token: '<e>', bos_token: { content: '<b>' }, model_max_length: 5 }, { name: 'x' }).specialTokens, {
      eos_token: '<e>',
      bos_token: '<b>',
    });
    assert.ok(tinyTokenizer().chatTemplate?.includes('<tool_call>'));
  },
);

test('fuzz: 400 seeded regexes — a repeated group holding a repeat or an alternative is refused; the patterns of real tokenizers are not', () => {
  const rand = rng(4041);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const atom = () => pick(['a', '\\s', '\\p{L}', '[^\\s\\p{L}]', '[a-z]', "'s", '\\(', '[(|+*]']);
  const rep = () => pick(['*', '+', '{1,}', '{2,5}']);
  const safe = (d: number): string =>
    d <= 0
      ? atom() + pick(['', '?', ...(rand() < 0.5 ? [rep()] : [])])
      : pick([`(?:${safe(d - 1)})`, `${safe(d - 1)}|${safe(d - 1)}`, `(?!${atom()})`, `${safe(d - 1)}${safe(d - 1)}`]);
  const nested = (d: number): string =>
    pick(
      [() => `(${safe(d)}${rep()})${rep()}`, () => `(?:${atom()}|${atom()})${rep()}`, () => `(${nested(d - 1)})`, () => `${safe(d)}${nested(d - 1)}`].slice(
        0,
        d > 0 ? 4 : 2,
      ),
    )();
  for (let i = 0; i < 200; i++) {
    const good = safe(2);
    const bad = nested(2);
    assert.deepEqual(backtrackingPatterns({ pre_tokenizer: { type: 'Split', pattern: { Regex: good } } }), [], good);
    assert.deepEqual(backtrackingPatterns({ normalizer: { type: 'Replace', pattern: { Regex: bad } } }), [bad], bad);
  }
  for (const real of [
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", // Llama 3
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+", // GPT-2
    '[\\r\\n]|\\s?[A-Za-zµÀ-ÖØ-öø-ƺ]+|\\s?[!-/:-~！-／：-～‘-‟　-。]+|\\s+$|[一-龥ࠀ-一가-퟿]+|\\p{N}+', // DeepSeek
  ])
    assert.deepEqual(backtrackingPatterns({ pre_tokenizer: { pretokenizers: [{ pattern: { Regex: real } }] } }), [], real);
});
