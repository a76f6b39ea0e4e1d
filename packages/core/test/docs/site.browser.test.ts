/**
 * The documentation site (site/: docs/ on VitePress, the API reference from TypeDoc) as a reader
 * sees it: the built site served on 127.0.0.1 and opened in headless Chromium. The home page
 * renders without a console error; the local search finds the composition guide for "mount";
 * every internal link and anchor of the site resolves; the API page of McpServer lists its
 * methods; each hand-written reference page links to its generated API pages.
 *
 * It uses site/dist as `npm run docs:build` (a stage of .ci/run) left it, and builds it itself
 * when it is missing or older than what it is built from.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../../../test-support/appsHost';

const repoRoot = path.resolve(__dirname, '../../../..');
const siteDir = path.join(repoRoot, 'site');
const distDir = path.join(siteDir, 'dist');
const BUILD_TIMEOUT_MS = 12 * 60_000;

jest.setTimeout(120_000);

/** The newest modification time under `dir` (files whose path passes `keep`). */
function newest(dir: string, keep: (file: string) => boolean = () => true): number {
  if (!fs.existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist' && !entry.name.startsWith('.')) latest = Math.max(latest, newest(full, keep));
      else if (entry.name === '.vitepress') latest = Math.max(latest, newest(full, (f) => !f.includes(`${path.sep}cache${path.sep}`) && !f.includes(`${path.sep}.temp${path.sep}`)));
    } else if (keep(full)) latest = Math.max(latest, fs.statSync(full).mtimeMs);
  }
  return latest;
}

/** Whether site/dist is missing or older than the docs, the site's own files or the packages' sources. */
function needsBuild(): boolean {
  const built = path.join(distDir, 'index.html');
  if (!fs.existsSync(built) || !fs.existsSync(path.join(distDir, 'api', 'index.html'))) return true;
  const builtAt = fs.statSync(built).mtimeMs;
  const inputs = [
    newest(path.join(repoRoot, 'docs')),
    newest(siteDir, (f) => !f.startsWith(path.join(siteDir, 'src') + path.sep)),
    ...fs.readdirSync(path.join(repoRoot, 'packages')).map((pkg) => newest(path.join(repoRoot, 'packages', pkg, 'src'))),
  ];
  return Math.max(...inputs) > builtAt;
}

function buildSite(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('npm', ['run', 'docs:build'], { cwd: repoRoot, timeout: BUILD_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`npm run docs:build failed: ${error.message}\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`));
      else resolve();
    });
  });
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' };

/** A static host for site/dist, as GitHub Pages serves it: files as they are, 404.html for the rest. */
function serve(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://site').pathname);
    let file = path.join(distDir, pathname);
    if (!file.startsWith(distDir)) file = '';
    else if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!file || !fs.existsSync(file)) {
      res.writeHead(404, { 'Content-Type': TYPES['.html'] });
      res.end(fs.readFileSync(path.join(distDir, '404.html')));
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'text/plain; charset=utf-8' });
    res.end(fs.readFileSync(file));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

let browser: Browser;
let site: { origin: string; close(): Promise<void> };

beforeAll(async () => {
  if (needsBuild()) await buildSite();
  site = await serve();
  browser = await launchChromium();
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** A page that records console errors and uncaught exceptions. */
async function open(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  return { page, errors };
}

it('renders the home page, with a server in one file and the two commands, without a console error', async () => {
  const { page, errors } = await open(`${site.origin}/`);
  try {
    await page.locator('.VPHero .name').filter({ hasText: 'TypeMCP' }).waitFor();
    const code = await page.locator('.vp-doc div[class*="language-"]').allTextContents();
    expect(code.some((block) => block.includes('new McpServer(') && block.includes("transport: 'stdio'"))).toBe(true);
    expect(code.some((block) => block.includes('npm ci && npm start') && block.includes('npm test'))).toBe(true);
    // Code blocks carry a copy button; the theme has a dark mode switch.
    expect(await page.locator('.vp-doc button.copy').count()).toBeGreaterThan(0);
    expect(await page.locator('.VPSwitchAppearance').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
});

it('finds the composition guide when searching for "mount", and opening it shows the guide', async () => {
  const { page, errors } = await open(`${site.origin}/`);
  try {
    await page.locator('.VPNavBarSearch button.DocSearch-Button').first().click();
    await page.locator('#localsearch-input').fill('mount');
    const result = page.locator('#localsearch-list a[href*="guides/composition.html"]').first();
    await result.waitFor({ timeout: 15_000 });
    await result.click();
    await page.waitForURL(/\/guides\/composition\.html/);
    await page.locator('.vp-doc h1').filter({ hasText: 'Composition' }).waitFor();
    expect(await page.locator('.vp-doc').textContent()).toContain('server.mount');
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
});

it('lists mount and fetchHandler on the API page of McpServer, which the hand-written McpServer page links to', async () => {
  const { page, errors } = await open(`${site.origin}/reference/McpServer.html`);
  try {
    const apiLink = page.locator('.api-links a', { hasText: /^McpServer$/ });
    await apiLink.waitFor();
    await apiLink.click();
    await page.waitForURL(/\/api\/classes\/_typemcp_core\.McpServer\.html$/);
    const members = await page.locator('.tsd-member h3').allTextContents();
    const names = members.map((text) => text.trim().replace(/\s+/g, ' '));
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^mount\b/), expect.stringMatching(/^fetchHandler\b/)]));
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
});

it('links every hand-written reference page to its generated API pages', async () => {
  const referenceDir = path.join(distDir, 'reference');
  const pages = fs.readdirSync(referenceDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html'));
  expect(pages.length).toBeGreaterThan(20);
  const without = pages.filter((file) => !/<p class="api-links">[^]*?href="\/api\/[^"]+\.html[^"]*"/.test(fs.readFileSync(path.join(referenceDir, file), 'utf8')));
  expect(without).toEqual([]);
});

it('resolves every internal link and anchor of the built site', async () => {
  const ids = new Map<string, Set<string>>();
  const queue = ['/'];
  const seen = new Set(queue);
  const broken: string[] = [];
  const anchorsWanted: Array<{ from: string; page: string; anchor: string }> = [];
  while (queue.length > 0) {
    const pathname = queue.shift()!;
    const response = await fetch(`${site.origin}${pathname}`);
    if (response.status !== 200) {
      broken.push(`${pathname}: ${response.status}`);
      continue;
    }
    if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) continue;
    const html = await response.text();
    ids.set(pathname, new Set([...html.matchAll(/\s(?:id|name)="([^"]+)"/g)].map(([, id]) => id)));
    for (const [, href] of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const decoded = href.replace(/&amp;/g, '&');
      if (/^(mailto|javascript):/.test(decoded)) continue;
      const url = new URL(decoded, `${site.origin}${pathname}`);
      if (url.origin !== site.origin) continue;
      const target = url.pathname.endsWith('/') ? `${url.pathname}index.html` : url.pathname;
      if (url.hash.length > 1) anchorsWanted.push({ from: pathname, page: target, anchor: decodeURIComponent(url.hash.slice(1)) });
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  // An anchor missing from a page's HTML may be made by its script (TypeDoc's hierarchy page):
  // such a page is opened in the browser and its anchors read from the document.
  const idsOf = (page: string) => ids.get(page) ?? ids.get(page.replace(/index\.html$/, ''));
  const rendered = new Set<string>();
  for (const { page, anchor } of anchorsWanted) {
    const found = idsOf(page);
    if (!found || found.has(anchor) || rendered.has(page)) continue;
    rendered.add(page);
    const { page: tab } = await open(`${site.origin}${page}`);
    const inDocument = await tab.evaluate(() => {
      const { document } = globalThis as unknown as { document: { querySelectorAll(selector: string): Iterable<{ id: string; getAttribute(name: string): string | null }> } };
      return [...document.querySelectorAll('[id], a[name]')].map((el) => el.id || el.getAttribute('name') || '');
    });
    for (const id of inDocument) found.add(id);
    await tab.close();
  }
  for (const { from, page, anchor } of anchorsWanted) {
    const found = idsOf(page);
    if (found && !found.has(anchor)) broken.push(`${from} → ${page}#${anchor} (no such anchor)`);
  }
  // The guides, the references and the API pages were all reached.
  expect([...seen].filter((p) => p.startsWith('/guides/')).length).toBeGreaterThan(25);
  expect([...seen].filter((p) => p.startsWith('/api/classes/')).length).toBeGreaterThan(20);
  expect([...new Set(broken)]).toEqual([]);
});
