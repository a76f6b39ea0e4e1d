import fs from 'node:fs';
import path from 'node:path';
import type { Output } from '../output';
import { UsageError } from '../UsageError';

export interface UiOptions {
  /** The UI's HTML page; its local scripts and stylesheets are bundled into it. */
  page: string;
  /** Where the single document and its CSP go (default dist/ui). */
  outdir?: string;
  /** Origins the UI fetches from at run time (`connectDomains`): not visible in the page. */
  connect?: string[];
  minify?: boolean;
}

/** `_meta.ui.csp` of an app's UI (MCP Apps): the origins it may use. */
export interface UiCsp {
  resourceDomains?: string[];
  connectDomains?: string[];
}

export interface BuiltUi {
  html: string;
  csp: UiCsp;
  htmlFile: string;
  cspFile: string;
}

const SCRIPT = /<script\b([^>]*)\bsrc\s*=\s*["']([^"']+)["']([^>]*)>\s*<\/script>/gi;
const STYLESHEET = /<link\b(?=[^>]*\brel\s*=\s*["']stylesheet["'])[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*>/gi;
const LOADED_URL = /\b(?:src|href)\s*=\s*["'](https?:\/\/[^"']+)["']/gi;

/**
 * An MCP Apps UI as the single HTML document its `ui://` resource serves: every local script
 * (TypeScript or JavaScript, with what it imports, e.g. `App` of @modelcontextprotocol/ext-apps)
 * bundled by esbuild and inlined, every local stylesheet inlined. Scripts, stylesheets and
 * images loaded from other origins stay as they are; their origins become the CSP's
 * `resourceDomains`, and `connect` its `connectDomains`. Writes `<name>.html` and
 * `<name>.csp.json` into `outdir`.
 */
export async function buildUi(options: UiOptions): Promise<BuiltUi> {
  const page = path.resolve(options.page);
  if (!fs.existsSync(page)) throw new UsageError(`there is no UI page at ${page}`);
  const dir = path.dirname(page);
  const esbuild = await import('esbuild');
  let html = fs.readFileSync(page, 'utf8');

  const scripts: Array<{ tag: string; code: string; module: boolean }> = [];
  for (const [tag, before, src, after] of html.matchAll(SCRIPT)) {
    if (isRemote(src)) continue;
    const module = /\btype\s*=\s*["']module["']/i.test(before + after);
    const result = await esbuild.build({
      entryPoints: [path.resolve(dir, src)],
      bundle: true,
      write: false,
      platform: 'browser',
      format: module ? 'esm' : 'iife',
      target: 'es2022',
      minify: options.minify !== false,
      logLevel: 'silent',
    });
    scripts.push({ tag, code: result.outputFiles[0].text, module });
  }
  for (const { tag, code, module } of scripts) {
    // `</script` inside the code would end the element early.
    const inline = `<script${module ? ' type="module"' : ''}>${code.replace(/<\/script/gi, '<\\/script')}</script>`;
    html = html.replace(tag, () => inline);
  }
  html = html.replace(STYLESHEET, (tag, href: string) => (isRemote(href) ? tag : `<style>${fs.readFileSync(path.resolve(dir, href), 'utf8').replace(/<\/style/gi, '<\\/style')}</style>`));

  const resourceDomains = [...new Set([...html.matchAll(LOADED_URL)].map(([, url]) => new URL(url).origin))].sort();
  const connectDomains = [...new Set((options.connect ?? []).map((origin) => originOf(origin)))].sort();
  const csp: UiCsp = {};
  if (resourceDomains.length > 0) csp.resourceDomains = resourceDomains;
  if (connectDomains.length > 0) csp.connectDomains = connectDomains;

  const outdir = path.resolve(options.outdir ?? path.join('dist', 'ui'));
  fs.mkdirSync(outdir, { recursive: true });
  const name = path.basename(page).replace(/\.html?$/i, '');
  const htmlFile = path.join(outdir, `${name}.html`);
  const cspFile = path.join(outdir, `${name}.csp.json`);
  fs.writeFileSync(htmlFile, html);
  fs.writeFileSync(cspFile, `${JSON.stringify(csp, null, 2)}\n`);
  return { html, csp, htmlFile, cspFile };
}

/** `typemcp ui`: builds the page and says where it went. */
export async function ui(options: UiOptions, out: Output): Promise<number> {
  const started = Date.now();
  const built = await buildUi(options);
  const size = Buffer.byteLength(built.html);
  out.info(`${out.green('built')} ${path.relative(process.cwd(), built.htmlFile)} (${(size / 1024).toFixed(1)} KiB) and ${path.relative(process.cwd(), built.cspFile)} in ${Date.now() - started} ms`);
  return 0;
}

function isRemote(url: string): boolean {
  return /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(url);
}

function originOf(text: string): string {
  try {
    return new URL(text).origin;
  } catch {
    throw new UsageError(`--connect takes an origin such as https://api.example.com, not "${text}"`);
  }
}
