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
  try {
    return transformSync(source, options).code;
  } catch (error) {
    throw syntaxError(error, filename);
  }
}

/**
 * swc's error as a SyntaxError that says what swc's code frame says (the message, the file, the
 * line with a caret), without what follows it: "Caused by:" and, with RUST_BACKTRACE set, some
 * thirty lines of the compiler's own stack, nor the loader's frames.
 */
export function syntaxError(error: unknown, filename: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  const frame = message.split(/\n\s*(?:Caused by:|Stack backtrace:)/)[0].replace(/\s+$/, '');
  const clean = new SyntaxError(frame);
  // The stack names the file only: the frames of the loader say nothing of the author's code.
  clean.stack = `SyntaxError: ${frame.replace(/^\s+/, '')}\n    at ${filename}`;
  return clean;
}
