import fs from 'node:fs';
import path from 'node:path';

/** The compiler options that change how a TypeMCP file must be compiled. */
export interface CompileSettings {
  /** Legacy decorators (`experimentalDecorators`); TC39 decorators otherwise, as tsc does. */
  legacyDecorators: boolean;
  /** `emitDecoratorMetadata`: the `design:*` types TypeMCP, class-validator and tsyringe read. */
  decoratorMetadata: boolean;
  /** `useDefineForClassFields`, with tsc's default for the target. */
  useDefineForClassFields: boolean;
  /** The tsconfig.json the settings come from, if any. */
  tsconfig?: string;
}

/** Without a tsconfig.json: what TypeMCP needs. */
const WITHOUT_TSCONFIG: CompileSettings = { legacyDecorators: true, decoratorMetadata: true, useDefineForClassFields: false };

/** Targets before ES2022, for which tsc's `useDefineForClassFields` defaults to false. */
const OLD_TARGETS = new Set(['es3', 'es5', 'es6', 'es2015', 'es2016', 'es2017', 'es2018', 'es2019', 'es2020', 'es2021']);

interface RelevantOptions {
  experimentalDecorators?: boolean;
  emitDecoratorMetadata?: boolean;
  useDefineForClassFields?: boolean;
  target?: string;
}
const RELEVANT = ['experimentalDecorators', 'emitDecoratorMetadata', 'useDefineForClassFields', 'target'] as const;

const byDirectory = new Map<string, CompileSettings>();

/** The settings for one source file: from the nearest tsconfig.json above it (cached per folder). */
export function compileSettingsFor(filename: string): CompileSettings {
  const dir = path.dirname(filename);
  let settings = byDirectory.get(dir);
  if (!settings) {
    const tsconfig = findUp(dir, 'tsconfig.json');
    settings = tsconfig ? settingsFrom(tsconfig) : WITHOUT_TSCONFIG;
    byDirectory.set(dir, settings);
  }
  return settings;
}

/** Reads a tsconfig.json (following `extends`) for the options that matter here. */
export function settingsFrom(tsconfig: string): CompileSettings {
  const options = readOptions(tsconfig, []);
  const target = options.target?.toLowerCase();
  return {
    legacyDecorators: options.experimentalDecorators === true,
    decoratorMetadata: options.experimentalDecorators === true && options.emitDecoratorMetadata === true,
    useDefineForClassFields: options.useDefineForClassFields ?? !(target !== undefined && OLD_TARGETS.has(target)),
    tsconfig,
  };
}

function readOptions(file: string, seen: string[]): RelevantOptions {
  if (seen.includes(file)) throw new Error(`${seen[0]}: "extends" loops back to ${file}`);
  let config: { extends?: unknown; compilerOptions?: Record<string, unknown> };
  try {
    config = parseJsonc(fs.readFileSync(file, 'utf8')) as typeof config;
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const bases = config.extends === undefined ? [] : Array.isArray(config.extends) ? config.extends : [config.extends];
  const options: RelevantOptions = {};
  // Later bases override earlier ones; the file's own options override them all.
  for (const base of bases) {
    if (typeof base !== 'string') throw new Error(`${file}: "extends" must be a string or an array of strings`);
    Object.assign(options, readOptions(resolveExtends(base, file), [...seen, file]));
  }
  const own = config.compilerOptions ?? {};
  for (const key of RELEVANT) if (own[key] !== undefined) (options as Record<string, unknown>)[key] = own[key];
  return options;
}

function resolveExtends(specifier: string, from: string): string {
  const dir = path.dirname(from);
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
    const file = path.resolve(dir, specifier);
    if (fs.existsSync(file) && fs.statSync(file).isFile()) return file;
    if (fs.existsSync(`${file}.json`)) return `${file}.json`;
    throw new Error(`${from}: "extends": "${specifier}" was not found`);
  }
  // A package: its tsconfig.json, or the file it names.
  for (const candidate of [specifier, `${specifier}.json`, `${specifier}/tsconfig.json`]) {
    try {
      return require.resolve(candidate, { paths: [dir] });
    } catch {
      // try the next form
    }
  }
  throw new Error(`${from}: "extends": "${specifier}" was not found in node_modules`);
}

function findUp(dir: string, name: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    if (path.basename(current) === 'node_modules') return undefined;
    const candidate = path.join(current, name);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(current) === current) return undefined;
  }
}

/** JSON with comments and trailing commas, as tsconfig.json allows. */
export function parseJsonc(text: string): unknown {
  let json = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      json += text.slice(start, i + 1);
    } else if (char === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      json += ' ';
    } else if (char === ',' && /^\s*[}\]]/.test(text.slice(i + 1).replace(/^(\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/, ''))) {
      // A trailing comma: dropped.
    } else {
      json += char;
    }
  }
  return JSON.parse(json);
}
