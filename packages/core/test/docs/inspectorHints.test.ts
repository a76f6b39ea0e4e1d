/**
 * Every command line that starts the MCP Inspector in the docs, the README, the template and
 * the examples' messages works on Node 20 and 22: the Inspector needs Node >= 22.19, and on
 * Node 20 a bare `npx @modelcontextprotocol/inspector` falls back to a release that cannot
 * connect over HTTP. The working form brings Node 22 along: `npx -y -p node@22 -p
 * @modelcontextprotocol/inspector@<version> mcp-inspector …`.
 */
import fs from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const WORKING = /npx -y -p node@22 -p @modelcontextprotocol\/inspector@\d+\.\d+\.\d+ mcp-inspector\b/;

function filesUnder(dir: string, pattern: RegExp): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') found.push(...filesUnder(relative, pattern));
    } else if (pattern.test(entry.name)) {
      found.push(relative);
    }
  }
  return found;
}

it('every Inspector command line brings Node 22 along', () => {
  const files = ['README.md', ...filesUnder('docs', /\.md$/), ...filesUnder('templates', /\.(md|ts|json)$/), ...filesUnder('examples', /\.(md|ts)$/)];
  const commands: string[] = [];
  const broken: string[] = [];
  for (const file of files) {
    for (const line of fs.readFileSync(path.join(repoRoot, file), 'utf8').split('\n')) {
      if (!/npx\b[^`'"]*@modelcontextprotocol\/inspector/.test(line)) continue;
      commands.push(file);
      if (!WORKING.test(line)) broken.push(`${file}: ${line.trim()}`);
    }
  }
  expect(broken).toEqual([]);
  expect(commands.length).toBeGreaterThanOrEqual(4);
});
