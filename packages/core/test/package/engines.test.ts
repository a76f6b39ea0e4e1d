/**
 * `npm ci` on the Node these tests run on warns EBADENGINE for no package of the lockfile:
 * every `engines.node` there admits this Node (the project supports Node >= 20; a dependency
 * that needs a newer one is pinned or overridden to a release that does not).
 */
import fs from 'node:fs';
import path from 'node:path';

type Version = [number, number, number];

function parse(text: string): { version: Version; parts: number } {
  const numbers = text.replace(/^v/, '').split('.').filter((part) => part !== '' && part !== 'x' && part !== '*');
  const [major = 0, minor = 0, patch = 0] = numbers.map(Number);
  return { version: [major, minor, patch], parts: numbers.length };
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Whether `version` satisfies one comparator set of a semver range (`>=x`, `<x`, `^x`, `x`, `x.*`). */
function satisfiesSet(version: Version, set: string): boolean {
  const comparators = set.replace(/(>=|<=|>|<|\^|~)\s+/g, '$1').trim().split(/\s+/).filter(Boolean);
  return comparators.every((comparator) => {
    const match = /^(>=|<=|>|<|\^|~)?(.*)$/.exec(comparator)!;
    const { version: bound, parts } = parse(match[2]);
    const order = compare(version, bound);
    switch (match[1]) {
      case '>=':
        return order >= 0;
      case '>':
        return order > 0;
      case '<=':
        return order <= 0;
      case '<':
        return order < 0;
      case '^':
        return order >= 0 && version[0] === bound[0];
      case '~':
        return order >= 0 && version[0] === bound[0] && version[1] === bound[1];
      default:
        // A bare version or an x-range: the parts given must match.
        return version.slice(0, parts).every((part, i) => part === bound[i]);
    }
  });
}

function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((set) => satisfiesSet(version, set));
}

it('the range checker reads the ranges of the lockfile as npm does', () => {
  const node = (text: string) => parse(text).version;
  expect(satisfies(node('20.20.2'), '>=22')).toBe(false);
  expect(satisfies(node('20.20.2'), '^20.19.0 || >=22.12.0')).toBe(true);
  expect(satisfies(node('20.18.0'), '^20.19.0 || >=22.12.0')).toBe(false);
  expect(satisfies(node('20.20.2'), '18 || 20 || >=22')).toBe(true);
  expect(satisfies(node('20.20.2'), '>=16 || 14 >=14.17')).toBe(true);
  expect(satisfies(node('20.20.2'), '6.* || 8.* || >= 10.*')).toBe(true);
  expect(satisfies(node('20.20.2'), '^18.14.0 || ^22.0.0')).toBe(false);
});

it(`every package of the lockfile runs on Node ${process.versions.node}`, () => {
  const lock = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: unknown }> };
  const here = parse(process.versions.node).version;
  const refused: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    const engines = entry.engines as { node?: unknown } | undefined;
    if (typeof engines?.node !== 'string') continue;
    if (!satisfies(here, engines.node)) refused.push(`${location.replace(/^.*node_modules\//, '')}@${entry.version}: node ${engines.node}`);
  }
  expect(refused).toEqual([]);
});
