/**
 * `node -r @typemcp/cli/dist/register/cjs.js entry.ts`: runs CommonJS TypeScript projects from
 * source. `.ts` files outside node_modules are compiled by swc; `./x.js` imports (as NodeNext
 * projects write them) resolve to `./x.ts` when no `x.js` exists (`.cjs` to `.cts`).
 */
import fs from 'node:fs';
import Module from 'node:module';
import { compileTypeScript } from './swc';
import { typeScriptSibling } from './specifier';

type CompileHook = (module: NodeJS.Module & { _compile(code: string, filename: string): void }, filename: string) => void;
const extensions = (Module as unknown as { _extensions: Record<string, CompileHook> })._extensions;

process.setSourceMapsEnabled?.(true);

const fallback = extensions['.js'];
for (const extension of ['.ts', '.cts', '.tsx']) {
  extensions[extension] = (module, filename) => {
    if (filename.includes('/node_modules/')) return fallback(module, filename);
    module._compile(compileTypeScript(fs.readFileSync(filename, 'utf8'), filename, 'commonjs'), filename);
  };
}

type Resolve = (request: string, parent: unknown, isMain: boolean, options: unknown) => string;
const moduleInternals = Module as unknown as { _resolveFilename: Resolve };
const resolveFilename = moduleInternals._resolveFilename;
moduleInternals._resolveFilename = function resolveTsForJs(request, parent, isMain, options) {
  try {
    return resolveFilename.call(this, request, parent, isMain, options);
  } catch (error) {
    const source = typeScriptSibling(request);
    if (!source) throw error;
    return resolveFilename.call(this, source, parent, isMain, options);
  }
};
