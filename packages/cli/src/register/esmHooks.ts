/**
 * Module customization hooks for ES module TypeScript projects (registered by ./esm): `.ts`
 * files become ES modules compiled by swc, and `./x.js` specifiers resolve to `./x.ts` when no
 * `x.js` exists (`.mjs` to `.mts`).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileTypeScript } from './swc';
import { typeScriptSibling } from './specifier';

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string; format?: string | null }>;
type NextLoad = (url: string, context: unknown) => Promise<{ format: string; source?: string | Buffer | null; shortCircuit?: boolean }>;

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const source = typeScriptSibling(specifier);
    if (!source) throw error;
    return nextResolve(source, context);
  }
}

export async function load(url: string, context: unknown, nextLoad: NextLoad) {
  if (!/\.(ts|mts)$/.test(url) || url.includes('/node_modules/')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  return { format: 'module', source: compileTypeScript(fs.readFileSync(filename, 'utf8'), filename, 'es6'), shortCircuit: true };
}
