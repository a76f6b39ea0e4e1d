const COMPILED = /^(\.{1,2}\/.*)\.(js|mjs|cjs)$/;
const SOURCE: Record<string, string> = { js: 'ts', mjs: 'mts', cjs: 'cts' };

/** `./x.ts` for a relative `./x.js` (`.mjs` → `.mts`, `.cjs` → `.cts`), as NodeNext sources import it; else undefined. */
export function typeScriptSibling(specifier: string): string | undefined {
  const match = COMPILED.exec(specifier);
  return match ? `${match[1]}.${SOURCE[match[2]]}` : undefined;
}
