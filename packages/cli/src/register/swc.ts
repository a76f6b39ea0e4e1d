import { transformSync } from '@swc/core';
import type { Options } from '@swc/core';
import { compileSettingsFor } from './tsconfig';

/**
 * Compiles one TypeScript file as tsc would with the nearest tsconfig.json: legacy decorators
 * and decorator metadata when it asks for them (TypeMCP, class-validator and tsyringe read that
 * metadata, which tsx/esbuild do not emit), TC39 decorators otherwise, so that TypeMCP reports
 * the missing options at start-up in development as it would after a build.
 */
export function compileTypeScript(source: string, filename: string, moduleType: 'commonjs' | 'es6'): string {
  const settings = compileSettingsFor(filename);
  const options: Options = {
    filename,
    sourceMaps: 'inline',
    // The project's tsconfig.json decides, not an .swcrc meant for another tool.
    swcrc: false,
    configFile: false,
    jsc: {
      parser: { syntax: 'typescript', decorators: true, tsx: filename.endsWith('.tsx') },
      transform: settings.legacyDecorators
        ? { legacyDecorator: true, decoratorMetadata: settings.decoratorMetadata, useDefineForClassFields: settings.useDefineForClassFields }
        : { decoratorVersion: '2022-03', useDefineForClassFields: settings.useDefineForClassFields },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: moduleType },
  };
  return transformSync(source, options).code;
}
