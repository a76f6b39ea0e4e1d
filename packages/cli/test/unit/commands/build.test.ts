import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { moduleFormatOf } from '../../../src/commands/build';

describe('moduleFormatOf', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-format-')));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const file = (relative: string, content = '') => {
    const full = path.join(root, relative);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
    return full;
  };

  it('reads the extension first', () => {
    file('esm/package.json', '{"type":"module"}');
    expect(moduleFormatOf(file('esm/dist/a.cjs'))).toBe('cjs');
    expect(moduleFormatOf(file('cjs/dist/a.mjs'))).toBe('esm');
  });

  it('takes a .js file\'s format from the nearest package.json', () => {
    expect(moduleFormatOf(file('esm/dist/main.js'))).toBe('esm');
    file('esm/dist/legacy/package.json', '{"type":"commonjs"}');
    expect(moduleFormatOf(file('esm/dist/legacy/main.js'))).toBe('cjs');
    file('plain/package.json', '{"name":"plain"}');
    expect(moduleFormatOf(file('plain/dist/main.js'))).toBe('cjs');
    file('broken/package.json', '{ not json');
    expect(moduleFormatOf(file('broken/main.js'))).toBe('cjs');
  });
});
