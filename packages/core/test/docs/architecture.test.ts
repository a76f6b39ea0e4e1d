/**
 * docs/architecture.md names files of packages/core/src and, in its walks, the functions a
 * request passes through. Both must stay true of the code.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../../../..');
const src = path.join(repoRoot, 'packages', 'core', 'src');
const page = readFileSync(path.join(repoRoot, 'docs', 'architecture.md'), 'utf8');

/** `a/b.ts` and `a/` names in backticks; the rest of a backticked text is not a path. */
const pathsIn = (text: string) => [...text.matchAll(/`([\w./-]+(?:\.ts|\/))`/g)].map((match) => match[1]);

describe('docs/architecture.md', () => {
  it('names only files and folders that exist', () => {
    const named = [...new Set(pathsIn(page))];
    expect(named.length).toBeGreaterThan(20);
    const missing = named.filter((name) => !existsSync(name.startsWith('packages/') ? path.join(repoRoot, name) : path.join(src, name)));
    expect(missing).toEqual([]);
  });

  it('names in each step of its walks functions that the files of that step have', () => {
    const walks = page.slice(page.indexOf('## Walk'));
    // Numbered steps, each with its continuation lines.
    const steps = walks.split(/\n(?=\d+\. )/).filter((step) => /^\d+\. /.test(step));
    expect(steps.length).toBeGreaterThan(10);
    expect(steps.filter((step) => /`\w+\(\)`/.test(step)).length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const step of steps) {
      const files = pathsIn(step).filter((name) => name.endsWith('.ts'));
      const sources = files.map((file) => readFileSync(path.join(src, file), 'utf8')).join('\n');
      // The page writes functions as `name()`; each must be defined or called in a file of its step.
      for (const [, name] of step.matchAll(/`(\w+)\(\)`/g)) {
        if (!new RegExp(`\\b${name}\\s*[(<]|\\b${name}\\s*=\\s*\\(|\\b${name}\\??\\.?\\(`).test(sources)) {
          problems.push(`${step.split('\n')[0].slice(0, 60)}…: \`${name}()\` is in none of ${files.join(', ') || 'its files'}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
