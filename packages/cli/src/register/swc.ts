import { transformSync } from '@swc/core';
import type { Options } from '@swc/core';

/**
 * Compiles one TypeScript file with legacy decorators and decorator metadata: TypeMCP,
 * class-validator and tsyringe read that metadata, and tsx/esbuild do not emit it.
 */
export function compileTypeScript(source: string, filename: string, moduleType: 'commonjs' | 'es6'): string {
  const options: Options = {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true, tsx: filename.endsWith('.tsx') },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: moduleType },
  };
  return transformSync(source, options).code;
}
