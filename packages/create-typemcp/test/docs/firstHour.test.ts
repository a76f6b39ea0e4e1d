/**
 * What the docs say of the first hour with a new project, checked against what the code does:
 * creating a project without a terminal (--yes), from a local registry (its .npmrc, the port
 * and storage of release:local), and a Workers project on Node 20 (wrangler on node@22,
 * nodejs_compat).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runTsPath } from '../../../../test-support/spawnServer';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const doc = (...parts: string[]) => fs.readFileSync(path.join(root, ...parts), 'utf8');
const gettingStarted = doc('docs', 'guides', 'getting-started.md');
const deploy = doc('docs', 'guides', 'deploy.md');
const { DEFAULT_PORT, DEFAULT_STORAGE } = require(path.join(root, 'scripts', 'release', 'registry.js')) as { DEFAULT_PORT: number; DEFAULT_STORAGE: string };

/** The commands of the ```sh blocks of a document, one a line, comments left out. */
function shellLines(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1].split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean));
}

describe('Getting started', () => {
  it('shows npm create and npx with --yes for a run without a terminal, the npm option before the --', () => {
    const lines = shellLines(gettingStarted);
    const create = lines.find((line) => line.startsWith('npm create typemcp') && line.includes('--yes'));
    expect(create).toBeDefined();
    // npm reads its own options before `--`; after it they go to create-typemcp, which has no --yes.
    expect(create!.indexOf('--yes')).toBeLessThan(create!.indexOf(' -- '));
    expect(lines).toContainEqual(expect.stringMatching(/^npx --yes create-typemcp my-server\b/));
    expect(gettingStarted).toContain('npx canceled due to missing packages and no YES option');
  });

  it("names every option of create-typemcp's help in its table", () => {
    const help = spawnSync(process.execPath, ['-r', runTsPath, path.join(__dirname, '..', '..', 'src', 'bin.ts'), '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    const options = [...help.stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((match) => match[1]).filter((option) => option !== '--help' && option !== '--mcp-name');
    expect(options).toContain('--registry');
    for (const option of options) expect({ option, documented: gettingStarted.includes(`| \`${option}`) }).toEqual({ option, documented: true });
  });

  it("gives the local registry's address, a project .npmrc for it, and how its storage is kept and cleaned, as release:local does", () => {
    const registry = `http://127.0.0.1:${DEFAULT_PORT}/`;
    expect(shellLines(gettingStarted)).toEqual(expect.arrayContaining([`npm create typemcp@latest my-server --registry ${registry}`, 'cd my-server', 'npm install']));
    expect(gettingStarted).toContain(`\`\`\`ini\n@typemcp:registry=${registry}\n\`\`\``);
    expect(gettingStarted).toContain(`(\`${path.relative(root, DEFAULT_STORAGE)}/\` in the clone)`);
    for (const option of ['--no-publish', '--port', '--storage', '--clean', 'RELEASE_PORT', 'RELEASE_STORAGE']) expect(gettingStarted).toContain(option);
    expect(gettingStarted).toContain('npm install @typemcp/auth');
  });
});

describe('Deploying: Workers on Node 20', () => {
  const overlay = JSON.parse(doc('templates', 'runtimes', 'workers', 'overlay.json')) as { devDependencies: Record<string, string> };

  it('runs wrangler on Node 22 from the npm package node@22, at the version the Workers project has', () => {
    expect(deploy).toContain(`npx -y -p node@22 -p wrangler@${overlay.devDependencies.wrangler} wrangler dev\n--local`);
    expect(overlay.devDependencies.node).toMatch(/^22\./);
    expect(deploy).toContain('devDependencies (`node`, 22.x)');
  });

  it('says when handlers must leave node: modules out, and the option that lets them in', () => {
    expect(deploy).toContain('A handler that imports one of Node\'s modules');
    expect(deploy).toContain('`--nodejs-compat`');
    expect(deploy).toContain('compatibility_flags = ["nodejs_compat"]');
    expect(doc('docs', 'reference', 'cli.md')).toContain('[--nodejs-compat]');
    expect(doc('packages', 'cli', 'src', 'run.ts')).toContain('--nodejs-compat ');
  });
});
