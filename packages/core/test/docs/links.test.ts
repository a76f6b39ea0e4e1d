/**
 * Every relative link of the docs leads somewhere: the file exists and, for `#anchor`, one of
 * its headings has that anchor (as GitHub makes them: lower case, punctuation dropped, spaces
 * to dashes). Links inside code blocks are not links.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../../../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return markdownFiles(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

const files = [
  ...markdownFiles(path.join(repoRoot, 'docs')),
  path.join(repoRoot, 'README.md'),
  path.join(repoRoot, 'CHANGELOG.md'),
  path.join(repoRoot, 'examples/conformance-server/SCENARIOS.md'),
];

const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** The anchor GitHub gives a heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

const anchors = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let found = anchors.get(file);
  if (!found) {
    const headings = withoutCode(readFileSync(file, 'utf8')).match(/^#+ .*$/gm) ?? [];
    found = new Set(headings.map((heading) => anchorOf(heading.replace(/^#+ /, ''))));
    anchors.set(file, found);
  }
  return found;
}

it('every relative link of the docs reaches an existing file and heading', () => {
  const broken: string[] = [];
  for (const file of files) {
    for (const [, link] of withoutCode(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link)) continue;
      const [target, anchor] = link.split('#');
      const resolved = target === '' ? file : path.resolve(path.dirname(file), target);
      const where = `${path.relative(repoRoot, file)}: ${link}`;
      if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${where} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});
