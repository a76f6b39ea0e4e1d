import fc from 'fast-check';
import { sameWithUnicodeFlag } from '../../../src/schema/unicodeMode';

const AGNOSTIC = [
  '^[a-z]+$',
  '^[a-z][a-z0-9-]*$',
  '^\\w+@\\w+\\.com$',
  '^\\d{3}-\\d{4}$',
  '^(?:ab|cd)*\\b$',
  '^\\s*x\\s*$',
  '^[\\u00e9\\u4e00-\\u9fff]+$',
  '^\\uFF01$',
  '(?<=a)b(?=c)',
  '^(?<word>[a-z]+) \\k<word>$',
  '',
  '^$',
  '[\\]\\-]',
];

const SENSITIVE = [
  '^.{1,3}$',
  '^[^,]+$',
  '^\\S+$',
  '^\\D*$',
  '^\\W$',
  '\\B',
  '^(?!a)',
  '(?<!a)$',
  '^\\p{L}+$',
  '^\\P{L}$',
  '^\\u{1F600}$',
  '^\\uD83D\\uDE00$',
  '^\u{1F600}$',
  '^[a-\\uFFFF]+$',
  '^[\\uE000-\\uF8FF]$',
  '[\\s\\S]',
];

describe('sameWithUnicodeFlag', () => {
  it.each(AGNOSTIC)('takes %j as the same with and without the u flag', (source) => {
    expect(sameWithUnicodeFlag(source)).toBe(true);
  });

  it.each(SENSITIVE)('refuses %j', (source) => {
    expect(sameWithUnicodeFlag(source)).toBe(false);
  });

  const strings = fc
    .array(fc.constantFrom('a', 'z', '0', '-', ' ', '\n', 'é', '\u4e00', '\uFF01', '\uFE0F', '\u{1F600}', '\uD83D', '\uDE00', 'ab', 'cd', 'x', 'c'), {
      maxLength: 8,
    })
    .map((parts) => parts.join(''));

  it('is right: the sources it takes match the same strings in both modes', () => {
    const checks = AGNOSTIC.map((source) => [new RegExp(source), new RegExp(source, 'u')] as const);
    fc.assert(
      fc.property(strings, (value) => checks.every(([plain, unicode]) => plain.test(value) === unicode.test(value))),
      { seed: 20_260_728, numRuns: 2_000 },
    );
  });

  // \B and negative lookarounds are refused only to be safe: no witness is known.
  it('has reason to refuse: a source of each other kind it refuses differs between the modes on some string', () => {
    const witnesses: ReadonlyArray<[string, string]> = [
      ['^.{1,3}$', '\u{1F600}\u{1F600}'],
      ['^[^,]$', '\u{1F600}'],
      ['^\\S$', '\u{1F600}'],
      ['^\\D$', '\u{1F600}'],
      ['^\\W$', '\u{1F600}'],
      ['^\\p{L}+$', 'p{L}'],
      ['^\\P{L}$', 'P{L}'],
      ['^\\u{1F600}$', '\u{1F600}'],
      ['^\\uD83D', '\u{1F600}'],
      ['^[a-\\uFFFF]+$', '\u{1F600}'],
    ];
    for (const [source, value] of witnesses) {
      expect(sameWithUnicodeFlag(source)).toBe(false);
      expect([source, new RegExp(source).test(value)]).not.toEqual([source, new RegExp(source, 'u').test(value)]);
    }
  });
});
