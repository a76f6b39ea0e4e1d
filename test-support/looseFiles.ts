/** Type-checking files outside any project (docs snippets and recipes) as the repository compiles its own. */
import path from 'node:path';
import * as ts from 'typescript';

const repoRoot = path.resolve(__dirname, '..');

/** The options of tsconfig.base.json, for a type-check of loose files that import @typemcp/*. */
export function looseFileOptions(): ts.CompilerOptions {
  const configPath = path.join(repoRoot, 'tsconfig.base.json');
  const { config, error } = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  // The base config has no inputs of its own ("No inputs were found"); only its options matter.
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, repoRoot, undefined, configPath);
  return {
    ...options,
    noEmit: true,
    composite: false,
    declaration: false,
    sourceMap: false,
    incremental: false,
    types: ['node'],
    // Absolute targets, so no baseUrl is needed (TypeScript 6 deprecates it).
    paths: { '@typemcp/*': [path.join(repoRoot, 'packages', '*', 'src')] },
  };
}
