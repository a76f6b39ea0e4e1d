/**
 * Module customization hooks for ES module TypeScript projects (registered by ./esm): `.ts`
 * files become ES modules compiled by swc, and `./x.js` specifiers resolve to `./x.ts` when no
 * `x.js` exists.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileTypeScript } from './swc';

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string; format?: string | null }>;
type NextLoad = (url: string, context: unknown) => Promise<{ format: string; source?: string | Buffer | null; shortCircuit?: boolean }>;

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!/^\.{1,2}\/.*\.js$/.test(specifier)) throw error;
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url: string, context: unknown, nextLoad: NextLoad) {
  if (!/\.(ts|mts)$/.test(url) || url.includes('/node_modules/')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  return { format: 'module', source: compileTypeScript(fs.readFileSync(filename, 'utf8'), filename, 'es6'), shortCircuit: true };
}
