import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileSettingsFor, parseJsonc, settingsFrom } from '../../../src/register/tsconfig';

describe('parseJsonc', () => {
  it('reads comments and trailing commas, and leaves strings alone', () => {
    const text = `{
      // a line comment
      "compilerOptions": { /* a block */ "outDir": "dist//x", "paths": { "a/*": ["b/*",], }, },
      "note": "a, } and /* not a comment */",
    }`;
    expect(parseJsonc(text)).toEqual({ compilerOptions: { outDir: 'dist//x', paths: { 'a/*': ['b/*'] } }, note: 'a, } and /* not a comment */' });
  });

  it('reports invalid JSON', () => expect(() => parseJsonc('{ "a": }')).toThrow(SyntaxError));
});

describe('compile settings', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-tsconfig-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, value: unknown) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), typeof value === 'string' ? value : JSON.stringify(value));
    return path.join(dir, file);
  };

  it('follows extends (relative, without .json, from a package, several) with later options winning', () => {
    write('node_modules/@acme/tsconfig/tsconfig.json', { compilerOptions: { experimentalDecorators: true, target: 'ES2020' } });
    write('base.json', { compilerOptions: { emitDecoratorMetadata: true } });
    write('strict.json', { compilerOptions: { emitDecoratorMetadata: false } });
    const tsconfig = write('tsconfig.json', { extends: ['@acme/tsconfig', './base', './strict.json'], compilerOptions: { emitDecoratorMetadata: true } });
    expect(settingsFrom(tsconfig)).toEqual({ legacyDecorators: true, decoratorMetadata: true, useDefineForClassFields: false, tsconfig });
  });

  it('compiles TC39 decorators without experimentalDecorators, as tsc does', () => {
    const tsconfig = write('tsconfig.json', '{ "compilerOptions": { "emitDecoratorMetadata": true, } }');
    expect(settingsFrom(tsconfig)).toMatchObject({ legacyDecorators: false, decoratorMetadata: false });
  });

  it.each([
    [{}, true],
    [{ target: 'ES2022' }, true],
    [{ target: 'esnext' }, true],
    [{ target: 'ES2021' }, false],
    [{ target: 'ES2022', useDefineForClassFields: false }, false],
  ])('useDefineForClassFields for %j is %s', (compilerOptions, expected) => {
    expect(settingsFrom(write('tsconfig.json', { compilerOptions })).useDefineForClassFields).toBe(expected);
  });

  it('names what is wrong with a tsconfig', () => {
    expect(() => settingsFrom(write('tsconfig.json', { extends: './missing' }))).toThrow(`${path.join(dir, 'tsconfig.json')}: "extends": "./missing" was not found`);
    expect(() => settingsFrom(write('tsconfig.json', { extends: '@acme/none' }))).toThrow('"extends": "@acme/none" was not found in node_modules');
    write('a.json', { extends: './tsconfig.json' });
    expect(() => settingsFrom(write('tsconfig.json', { extends: './a.json' }))).toThrow('"extends" loops back to');
    expect(() => settingsFrom(write('tsconfig.json', '{ nope'))).toThrow(`cannot read ${path.join(dir, 'tsconfig.json')}`);
  });

  it('uses the nearest tsconfig.json above a file, and what TypeMCP needs when there is none', () => {
    const inner = write('app/tsconfig.json', { compilerOptions: { experimentalDecorators: true } });
    expect(compileSettingsFor(path.join(dir, 'app', 'src', 'main.ts'))).toMatchObject({ tsconfig: inner, legacyDecorators: true, decoratorMetadata: false });
    // os.tmpdir() has no tsconfig.json above it.
    expect(compileSettingsFor(path.join(dir, 'loose', 'main.ts'))).toEqual({ legacyDecorators: true, decoratorMetadata: true, useDefineForClassFields: false });
  });
});
