/**
 * The documentation site's rules that need no browser (site/; the browser test is
 * site.browser.test.ts):
 * - every declaration a package exports is documented: a doc comment on the declaration
 *   itself (its members are not required to have one). TypeDoc's API reference shows these
 *   comments; an export without one is a page that says nothing.
 * - the home page's server is one of the guides' runnable snippets, which the snippets test runs.
 * - the GitHub Pages workflow builds the site with `npm run docs:build` and deploys site/dist.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as ts from 'typescript';
import { parse } from 'yaml';

const repoRoot = path.resolve(__dirname, '../../../..');

/**
 * The public entry points, as site/scripts/entryPoints.mjs reads them for the API reference:
 * each subpath the package.json of a package exports, with src/<subpath>/index.ts behind it; and
 * core's entry for Workers and browsers.
 */
function entryPoints(): Array<{ specifier: string; file: string }> {
  const found: Array<{ specifier: string; file: string }> = [];
  for (const dir of fs.readdirSync(path.join(repoRoot, 'packages')).sort()) {
    const manifestFile = path.join(repoRoot, 'packages', dir, 'package.json');
    if (!fs.existsSync(manifestFile)) continue;
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    for (const subpath of Object.keys(manifest.exports ?? { '.': {} }).filter((s) => s !== './package.json')) {
      found.push({ specifier: `${manifest.name}${subpath.slice(1)}`, file: path.posix.join('packages', dir, 'src', subpath === '.' ? '' : subpath.slice(2), 'index.ts') });
    }
  }
  return [...found, { specifier: '@typemcp/core (workerd, worker, browser)', file: 'packages/core/src/index.web.ts' }];
}

describe('the API reference', () => {
  it('finds the source of every export of every package where the generator looks for it', () => {
    const missing = entryPoints().filter((entry) => !fs.existsSync(path.join(repoRoot, entry.file)));
    expect(missing).toEqual([]);
    expect(entryPoints().map((entry) => entry.specifier)).toEqual(expect.arrayContaining(['@typemcp/core', '@typemcp/core/build', '@typemcp/auth/testing', '@typemcp/guards']));
  });

  it('documents every exported declaration of every package', () => {
    const entries = entryPoints().map((entry) => path.join(repoRoot, entry.file));
    const config = ts.getParsedCommandLineOfConfigFile(path.join(repoRoot, 'tsconfig.test.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    const program = ts.createProgram(entries, { ...config!.options, noEmit: true });
    const checker = program.getTypeChecker();
    const undocumented = new Set<string>();
    for (const entry of entries) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
      for (const exported of checker.getExportsOfModule(module)) {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const declarations = symbol.declarations ?? [];
        const documented = declarations.some((declaration) => {
          const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
          return ts.getJSDocCommentsAndTags(node).some((doc) => ts.isJSDoc(doc));
        });
        if (!documented && declarations[0]) undocumented.add(`${path.relative(repoRoot, declarations[0].getSourceFile().fileName)}: ${exported.name}`);
      }
    }
    expect([...undocumented].sort()).toEqual([]);
  });
});

it("shows on the home page a server that is one of the guides' runnable snippets", () => {
  const home = fs.readFileSync(path.join(repoRoot, 'site/home.md'), 'utf8');
  const server = /```ts\n([\s\S]*?)```/.exec(home)?.[1];
  expect(server).toContain('new McpServer(');
  const guides = fs.readdirSync(path.join(repoRoot, 'docs/guides')).map((file) => fs.readFileSync(path.join(repoRoot, 'docs/guides', file), 'utf8'));
  const runnable = guides.flatMap((text) => [...text.matchAll(/```ts runnable\n([\s\S]*?)```/g)].map(([, code]) => code));
  expect(runnable).toContain(server);
  // And the two commands of the README.
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const commands = /```sh\n([\s\S]*?)```/.exec(readme)![1];
  expect(home).toContain(commands);
});

describe('the GitHub Pages workflow (.github/workflows/docs.yml)', () => {
  const workflow = parse(fs.readFileSync(path.join(repoRoot, '.github/workflows/docs.yml'), 'utf8'));

  it('builds the site on every push to main with npm run docs:build, under the repository path', () => {
    expect(workflow.on.push.branches).toEqual(['main']);
    expect(workflow.permissions).toMatchObject({ pages: 'write', 'id-token': 'write' });
    const steps: Array<Record<string, any>> = workflow.jobs.build.steps;
    const run = steps.map((step) => step.run).filter(Boolean);
    expect(run).toEqual(['npm ci --no-audit --no-fund', 'npm run docs:build']);
    const build = steps.find((step) => step.run === 'npm run docs:build')!;
    expect(build.env.DOCS_BASE).toBe('/${{ github.event.repository.name }}/');
    expect(steps.find((step) => String(step.uses).startsWith('actions/upload-pages-artifact@'))!.with.path).toBe('site/dist');
  });

  it('deploys what the build uploaded to GitHub Pages', () => {
    expect(workflow.jobs.deploy.needs).toBe('build');
    expect(workflow.jobs.deploy.environment.name).toBe('github-pages');
    expect(workflow.jobs.deploy.steps.map((step: { uses?: string }) => step.uses)).toEqual([expect.stringMatching(/^actions\/deploy-pages@v\d+$/)]);
  });

  it('runs the docs:build script the repository defines, whose output folder it uploads', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts;
    expect(scripts['docs:build']).toContain('npm run build --prefix site');
    expect(fs.readFileSync(path.join(repoRoot, 'site/.vitepress/config.mts'), 'utf8')).toContain("outDir: './dist'");
  });
});
