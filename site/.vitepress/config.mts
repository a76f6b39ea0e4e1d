// The documentation site: docs/ as written for the repository (copied to site/src by
// scripts/content.mjs), served by VitePress, with the
// API reference TypeDoc writes to site/.api (scripts/api.mjs) served beside it at /api/.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, cpSync, statSync } from 'node:fs';
import path from 'node:path';
import { defineConfig, type DefaultTheme } from 'vitepress';
import type MarkdownIt from 'markdown-it';

const site = path.resolve(__dirname, '..');
const repo = path.dirname(site);
const docs = path.join(repo, 'docs');
const apiDir = path.join(site, '.api');
/** Where the site is served from: `/` locally, `/<repository>/` on GitHub Pages (.github/workflows/docs.yml). */
const base = process.env.DOCS_BASE ?? '/';

/** The anchor GitHub gives a heading, so that the docs' `#anchors` work on the site as on the forge. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** `[Title](guides/x.md)` links of one `## Section` of docs/README.md, in order. */
function linksOfSection(section: string): { text: string; link: string }[] {
  const readme = readFileSync(path.join(docs, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${section}\n`);
  if (start < 0) return [];
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/^\| \[([^\]]+)\]\(([^)#]+\.md)\)/gm)].map(([, title, link]) => ({ text: title, link }));
}

/** The first heading of a page, for the pages docs/README.md does not list. */
function titleOf(file: string): string {
  const heading = /^# (.+)$/m.exec(readFileSync(path.join(docs, file), 'utf8'));
  return heading ? heading[1].replace(/`/g, '') : path.basename(file, '.md');
}

function markdownUnder(dir: string): string[] {
  return readdirSync(path.join(docs, dir))
    .flatMap((name) => (statSync(path.join(docs, dir, name)).isDirectory() ? markdownUnder(`${dir}/${name}`) : name.endsWith('.md') ? [`${dir}/${name}`] : []))
    .sort();
}

/** A sidebar group: the pages of `dir` in the order docs/README.md lists them, then the others. */
function group(text: string, dir: string, listed: { text: string; link: string }[]): DefaultTheme.SidebarItem {
  const files = markdownUnder(dir);
  const items = listed.filter((l) => l.link.startsWith(`${dir}/`) && files.includes(l.link)).map((l) => ({ text: l.text, link: `/${l.link}` }));
  for (const file of files) if (!items.some((i) => i.link === `/${file}`)) items.push({ text: titleOf(file), link: `/${file}` });
  return { text, items };
}

/** names.json of the API reference: entry point → declaration → page under /api/. */
function apiNames(): Record<string, Record<string, string>> {
  const file = path.join(apiDir, 'names.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
}

/** The package a reference page is about, when it is not @typemcp/core's. */
const PACKAGE_PAGES: Record<string, string> = {
  'reference/testing.md': '@typemcp/testing',
  'reference/auth.md': '@typemcp/auth',
  'reference/opentelemetry.md': '@typemcp/opentelemetry',
  'reference/redis.md': '@typemcp/redis',
  'reference/proxy.md': '@typemcp/proxy',
  'reference/guards.md': '@typemcp/guards',
  'reference/openapi.md': '@typemcp/openapi',
  'reference/cli.md': '@typemcp/cli',
};

/**
 * The generated pages a hand-written reference page documents: the exports docs/README.md lists
 * for it that the API reference has, or else its package's page. What the generated reference
 * says (signatures, every member) is linked, not said again.
 */
function apiLinksOf(page: string): { text: string; href: string }[] {
  const names = apiNames();
  const pkg = PACKAGE_PAGES[page] ?? (page.startsWith('reference/guards/') ? '@typemcp/guards' : '@typemcp/core');
  const readme = readFileSync(path.join(docs, 'README.md'), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith('| [') && line.includes(`](${page})`));
  const listed = row ? [...row.split('|')[2].matchAll(/`([A-Za-z_][\w]*)`/g)].map(([, name]) => name) : [];
  const links: { text: string; href: string }[] = [];
  const searched = [pkg, ...(pkg === '@typemcp/auth' ? ['@typemcp/auth/testing'] : []), ...(pkg === '@typemcp/core' ? ['@typemcp/core/build'] : [])];
  for (const name of listed) {
    const where = searched.find((p) => names[p]?.[name]);
    if (where && !links.some((l) => l.text === name)) links.push({ text: name, href: names[where][name] });
  }
  if (links.length === 0 && names[pkg]?.['']) links.push({ text: pkg, href: names[pkg][''] });
  return links.map((l) => ({ ...l, href: `${base}api/${l.href}` }));
}

/** Files outside docs/ that the docs link to, as repository paths; copied into the site at /source/. */
const sourceFiles = new Set<string>();

/**
 * - A link that leaves docs/ (an example's README, a source file) goes to that file's copy in
 *   the site, /source/<path>.
 * - A hand-written reference page says, under its title, which generated API pages hold its
 *   declarations.
 */
function docsPlugin(md: MarkdownIt): void {
  const linkOpen = md.renderer.rules.link_open!;
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    const href = token.attrGet('href');
    if (href && !/^[a-z][a-z0-9+.-]*:|^#|^\//i.test(href) && env.relativePath) {
      const [target, hash] = href.split('#');
      const resolved = path.resolve(path.dirname(path.join(docs, env.relativePath)), target);
      const relative = path.relative(repo, resolved);
      if (!resolved.startsWith(docs + path.sep) && !relative.startsWith('..') && existsSync(resolved) && statSync(resolved).isFile()) {
        sourceFiles.add(relative);
        token.attrSet('href', `${base}source/${relative}${hash ? `#${hash}` : ''}`);
        token.attrSet('target', '_self');
      }
    }
    return linkOpen(tokens, idx, options, env, self);
  };

  md.core.ruler.push('api_links', (state) => {
    const page: string | undefined = state.env.relativePath;
    if (!page?.startsWith('reference/')) return;
    const headingEnd = state.tokens.findIndex((t) => t.type === 'heading_close' && t.tag === 'h1');
    if (headingEnd < 0) return;
    const links = apiLinksOf(page);
    if (links.length === 0) return;
    const html = new state.Token('html_block', '', 0);
    const anchors = links.map((l) => `<a href="${l.href}" target="_self"><code>${l.text}</code></a>`).join(', ');
    html.content = `<p class="api-links"><strong>API reference</strong> (generated from the source): ${anchors}</p>\n`;
    state.tokens.splice(headingEnd + 1, 0, html);
  });
}

const guides = linksOfSection('Guides');
const reference = linksOfSection('Reference');

export default defineConfig({
  title: 'TypeMCP',
  description: 'Declarative Model Context Protocol servers in TypeScript',
  // A copy of docs/ (scripts/content.mjs), inside this package.
  srcDir: './src',
  outDir: './dist',
  base,
  lang: 'en-US',
  // The icon, so that no page asks for a /favicon.ico that is not there.
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: `${base}favicon.svg` }]],
  lastUpdated: false,
  // Pages keep the names they have in the repository (guides/tools.md is guides/tools.html).
  cleanUrls: false,
  ignoreDeadLinks: [/^\/api\//, /^\/source\//],
  markdown: {
    // The docs are written for the forge: a `<placeholder>` in their text is text, not an element.
    html: false,
    anchor: { slugify: githubSlug },
    config: docsPlugin,
  },
  themeConfig: {
    nav: [
      { text: 'Guides', link: '/guides/getting-started' },
      { text: 'Reference', link: '/reference/McpServer' },
      { text: 'API', link: `${base}api/index.html`, target: '_self' },
      { text: 'Architecture', link: '/architecture' },
    ],
    sidebar: [
      { text: 'Overview', items: [{ text: 'Documentation', link: '/README' }, { text: 'Performance', link: '/performance' }, { text: 'Architecture', link: '/architecture' }] },
      group('Guides', 'guides', guides),
      group('Reference', 'reference', reference),
      { text: 'API (generated)', items: Object.entries(apiNames()).map(([pkg, names]) => ({ text: pkg, link: `${base}api/${names['']}`, target: '_self' })) },
    ],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
  vite: {
    plugins: [
      {
        // The dev server serves the API reference and the linked source files as the build does.
        name: 'typemcp-docs-static',
        configureServer(server) {
          server.middlewares.use((req, res, next) => {
            const url = decodeURIComponent((req.url ?? '').split('?')[0]);
            const prefix = url.startsWith(`${base}api/`) ? `${base}api/` : url.startsWith(`${base}source/`) ? `${base}source/` : '';
            if (!prefix) return next();
            const root = prefix.endsWith('api/') ? apiDir : repo;
            const file = path.join(root, url.slice(prefix.length));
            if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) return next();
            res.setHeader('Content-Type', file.endsWith('.html') ? 'text/html' : file.endsWith('.css') ? 'text/css' : file.endsWith('.js') ? 'text/javascript' : 'text/plain; charset=utf-8');
            res.end(readFileSync(file));
          });
        },
      },
    ],
  },
  buildEnd(config) {
    if (!existsSync(path.join(apiDir, 'index.html'))) throw new Error('site/.api has no API reference: run node scripts/api.mjs first');
    cpSync(apiDir, path.join(config.outDir, 'api'), { recursive: true });
    copyFileSync(path.join(site, 'favicon.svg'), path.join(config.outDir, 'favicon.svg'));
    for (const file of sourceFiles) {
      const to = path.join(config.outDir, 'source', file);
      mkdirSync(path.dirname(to), { recursive: true });
      copyFileSync(path.join(repo, file), to);
    }
  },
});
