/**
 * Whether a regular expression source (one that is valid with the `u` flag) accepts exactly the
 * same strings with the `u` flag as without it. A schema `pattern` always runs with `u`, where
 * the input is a sequence of code points; class-validator runs a `@Matches` regex with its own
 * flags, so without `u` the input is a sequence of UTF-16 code units and an astral character
 * (an emoji) is two of them: `/^.{1,3}$/` takes two emoji with `u` and refuses them without.
 *
 * The two modes agree when every atom that consumes input matches only characters of the Basic
 * Multilingual Plane outside the surrogate range, and no assertion succeeds between the two
 * halves of a surrogate pair: then no match can consume half of an astral character (or an
 * astral character at all), and each match in one mode is a match in the other. So the source
 * must have none of:
 *
 * - `.`, a negated class `[^…]`, `\D`, `\S`, `\W` (they match a lone half, or a whole astral
 *   character); `\B` and negative lookarounds `(?!…)`, `(?<!…)` (they can succeed between the
 *   halves, where nothing else of such a source can);
 * - `\p{…}`, `\P{…}`, `\u{…}` (without `u` they are literal text: `\u{41}` is 41 `u`s);
 * - a surrogate, written as is (an astral character in the source) or as `\uD800`–`\uDFFF`;
 * - in a class, a character or escape at U+D800 or above (a range such as `[a-\uFFFF]` spans
 *   the surrogates). This is broader than needed, and only costs a class-validator run.
 */
export function sameWithUnicodeFlag(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) return false;
    const char = source[i];
    if (char === '\\') {
      const escaped = source[++i];
      if (escaped === undefined || 'DSWBpP'.includes(escaped)) return false;
      if (escaped === 'u') {
        if (source[i + 1] === '{') return false;
        const value = Number.parseInt(source.slice(i + 1, i + 5), 16);
        if (value >= 0xd800 && (inClass || value <= 0xdfff)) return false;
        i += 4;
      }
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      else if (code >= 0xd800) return false;
      continue;
    }
    if (char === '.') return false;
    if (char === '[') {
      if (source[i + 1] === '^') return false;
      inClass = true;
    } else if (char === '(' && (source.startsWith('?!', i + 1) || source.startsWith('?<!', i + 1))) return false;
  }
  return true;
}
