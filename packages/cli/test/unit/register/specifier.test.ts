import { typeScriptSibling } from '../../../src/register/specifier';

describe('typeScriptSibling', () => {
  it.each([
    ['./a.js', './a.ts'],
    ['../lib/b.mjs', '../lib/b.mts'],
    ['./c.cjs', './c.cts'],
  ])('%s → %s', (specifier, source) => expect(typeScriptSibling(specifier)).toBe(source));

  it.each(['lodash.js', './a.ts', './a.json', '/abs/a.js'])('leaves %s alone', (specifier) => expect(typeScriptSibling(specifier)).toBeUndefined());
});
