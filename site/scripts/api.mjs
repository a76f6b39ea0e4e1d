// The API reference: TypeDoc's HTML for the public exports of every package (each package's
// src/index.ts and its subpath exports), written to site/.api/ and served by the site at /api/.
// Beside it, names.json maps each exported declaration to its page, for the site's links from
// the hand-written reference pages to the generated ones.
//
//   node scripts/api.mjs            (npm run dev / build run it first)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, Converter, ReflectionKind, RendererEvent } from 'typedoc';
import { ENTRY_POINTS } from './entryPoints.mjs';

const site = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.dirname(site);
const out = path.join(site, '.api');
/** Where the site is served from, as in .vitepress/config.mts. */
const base = process.env.DOCS_BASE ?? '/';

const app = await Application.bootstrapWithPlugins({
  name: 'TypeMCP API',
  entryPoints: ENTRY_POINTS.map((entry) => path.join(repo, entry.file)),
  entryPointStrategy: 'resolve',
  tsconfig: path.join(site, 'tsconfig.api.json'),
  readme: 'none',
  excludeInternal: true,
  excludePrivate: true,
  excludeProtected: true,
  excludeExternals: true,
  // No links into a forge: the site is built from any clone, and its links are checked.
  disableSources: true,
  disableGit: true,
  hideGenerator: true,
  favicon: path.join(site, 'favicon.svg'),
  // The summary page of class hierarchies misses the types a package re-exports from another
  // (its links to them lead nowhere); each page shows its own hierarchy.
  includeHierarchySummary: false,
  githubPages: false,
  // Every exported declaration is documented (site/test/api.test.ts holds the rule); its
  // members are not required to be. TypeDoc's own warnings stay warnings.
  validation: { notExported: false, invalidLink: false, notDocumented: false, rewrittenLink: false, unusedMergeModuleWith: false },
  logLevel: 'Error',
  // Type errors are the type-check's to report (npm run typecheck); the reference is built from what parses.
  skipErrorChecking: true,
  // Every page of the reference carries these links as they are: absolute, under the site's base.
  navigationLinks: { Guides: `${base}guides/getting-started.html`, Reference: `${base}reference/McpServer.html` },
});

// Modules are named after the import specifier a user writes (`@typemcp/auth/testing`).
app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
  for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
    // TypeDoc names them by path from the common folder: packages/auth/src/testing/index.ts is auth/src/testing.
    const entry = ENTRY_POINTS.find((e) => e.file.replace(/^packages\//, '').replace(/\/index\.ts$/, '') === module.name);
    if (entry) module.name = entry.specifier;
  }
});

const project = await app.convert();
if (!project) {
  console.error('api.mjs: TypeDoc could not convert the packages');
  process.exit(1);
}
// The page of each reflection, as the renderer lays them out.
const pageOf = new Map();
app.renderer.on(RendererEvent.BEGIN, (event) => {
  for (const page of event.pages ?? []) pageOf.set(page.model, page.url);
});
mkdirSync(out, { recursive: true });
await app.generateDocs(project, out);

// names.json: { "@typemcp/core": { "": "modules/…html", "McpServer": "classes/…html", … }, … }
const names = {};
for (const module of project.getChildrenByKind(ReflectionKind.Module)) {
  const entries = (names[module.name] = { '': pageOf.get(module) });
  for (const child of module.children ?? []) entries[child.name] = pageOf.get(child) ?? `${pageOf.get(module)}#${child.name.toLowerCase()}`;
}
writeFileSync(path.join(out, 'names.json'), JSON.stringify(names, null, 2) + '\n');
console.log(`api.mjs: ${Object.values(names).reduce((n, m) => n + Object.keys(m).length - 1, 0)} declarations of ${Object.keys(names).length} entry points in ${path.relative(repo, out)}`);
