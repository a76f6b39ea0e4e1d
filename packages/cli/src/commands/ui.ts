import fs from 'node:fs';
import path from 'node:path';
import type { Output } from '../output';
import { UsageError } from '../UsageError';

/** The options of `buildUi` (`typemcp ui`): the page to bundle, where it goes, what it fetches. */
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

/** What `buildUi` made: the single HTML document and its CSP, and the files it wrote them to. */
export interface BuiltUi {
  html: string;
  csp: UiCsp;
  htmlFile: string;
  cspFile: string;
}

const SCRIPT = /<script\b([^>]*)\bsrc\s*=\s*["']([^"']+)["']([^>]*)>\s*<\/script>/gi;
const STYLESHEET = /<link\b(?=[^>]*\brel\s*=\s*["']stylesheet["'])[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*>/gi;
/** A start tag: its name and its attributes. */
const TAG = /<([a-z][a-z0-9-]*)\b([^>]*)>/gi;
/** An attribute that makes the browser load a URL (`href` of a link is no load: see NOT_LOADS). */
const LOAD_ATTRIBUTE = /(?:^|\s)(src|href|srcset)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;
const NOT_LOADS = new Set(['a', 'area']);

/**
 * An MCP Apps UI as the single HTML document its `ui://` resource serves: every local script
 * (TypeScript or JavaScript, with what it imports, e.g. `App` of @modelcontextprotocol/ext-apps)
 * bundled by esbuild and inlined, every local stylesheet inlined. Scripts, stylesheets and
 * images loaded from other origins stay as they are; their origins become the CSP's
 * `resourceDomains`, and `connect` its `connectDomains`. Writes `<name>.html` and
 * `<name>.csp.json` into `outdir`.
 *
 * The page is not trusted (docs/guides/apps.md, "What is refused, and why"): no file outside
 * the project root (the folder of the nearest package.json above the page) is inlined, and
 * no origin but a well-formed http(s) one with a host name is declared; else it throws,
 * naming the reference, and writes nothing.
 */
export async function buildUi(options: UiOptions): Promise<BuiltUi> {
  const given = path.resolve(options.page);
  if (!fs.existsSync(given)) throw new UsageError(`there is no UI page at ${given}`);
  const page = fs.realpathSync(given);
  const dir = path.dirname(page);
  const root = projectRoot(dir);
  let html = fs.readFileSync(page, 'utf8');
  // The page as written says what it loads; the code and styles inlined below do not add to it.
  const resourceDomains = loadedOrigins(html);
  const connectDomains = [...new Set((options.connect ?? []).map((origin) => originOf(origin)))].sort();
  const esbuild = await import('esbuild');

  const scripts: Array<{ tag: string; code: string; module: boolean }> = [];
  for (const [tag, before, src, after] of html.matchAll(SCRIPT)) {
    const file = localFile(src, `<script src="${src}">`, dir, root);
    if (file === undefined) continue;
    const module = /\btype\s*=\s*["']module["']/i.test(before + after);
    let result;
    try {
      result = await esbuild.build({
        entryPoints: [file],
        bundle: true,
        write: false,
        platform: 'browser',
        format: module ? 'esm' : 'iife',
        target: 'es2022',
        minify: options.minify !== false,
        logLevel: 'silent',
        plugins: [insideRoot(root)],
      });
    } catch (error) {
      throw new Error(`bundling <script src="${src}"> failed:\n${esbuildMessages(error)}`);
    }
    scripts.push({ tag, code: result.outputFiles[0].text, module });
  }
  for (const { tag, code, module } of scripts) {
    // `</script` inside the code would end the element early.
    const inline = `<script${module ? ' type="module"' : ''}>${code.replace(/<\/script/gi, '<\\/script')}</script>`;
    html = html.replace(tag, () => inline);
  }
  html = html.replace(STYLESHEET, (tag, href: string) => {
    const file = localFile(href, `<link rel="stylesheet" href="${href}">`, dir, root);
    return file === undefined ? tag : `<style>${fs.readFileSync(file, 'utf8').replace(/<\/style/gi, '<\\/style')}</style>`;
  });

  const csp: UiCsp = {};
  if (resourceDomains.length > 0) csp.resourceDomains = resourceDomains;
  if (connectDomains.length > 0) csp.connectDomains = connectDomains;

  const outdir = path.resolve(options.outdir ?? path.join('dist', 'ui'));
  fs.mkdirSync(outdir, { recursive: true });
  const name = path.basename(given).replace(/\.html?$/i, '');
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

/** The project's root: the folder of the nearest package.json above the page (the page's folder when there is none). */
function projectRoot(dir: string): string {
  for (let at = dir; ; at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, 'package.json'))) return at;
    if (path.dirname(at) === at) return dir;
  }
}

function isInside(file: string, root: string): boolean {
  const relative = path.relative(root, file);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * The file a script's `src` or a stylesheet's `href` names, to inline; undefined for an
 * http(s) URL, which stays. A relative reference is taken from the page's folder, `/x` from
 * the project root, its query and fragment dropped and its escapes decoded, as a server of
 * the project's folder would; the file, symlinks followed, must be under the root.
 */
function localFile(reference: string, tag: string, dir: string, root: string): string | undefined {
  const text = reference.trim();
  if (/^https?:\/\//i.test(text)) return undefined;
  if (/^[\\/]{2}/.test(text)) throw new Error(`the page's ${tag}: "${text}" has no scheme, and the built page is served from a ui:// URI; write https://${text.replace(/^[\\/]+/, '')}`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) throw new Error(`the page's ${tag} is neither a file of the project nor an http(s) URL; typemcp ui inlines files under the project root ${root} and keeps http(s) URLs`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(text.replace(/[?#].*$/s, ''));
  } catch {
    throw new Error(`the page's ${tag} is not a well-formed URL path (a stray %)`);
  }
  const file = decoded.startsWith('/') ? path.join(root, decoded) : path.resolve(dir, decoded);
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    if (!isInside(file, root)) throw outsideRoot(tag, root);
    throw new Error(`the page's ${tag} names ${file}, which does not exist${decoded.startsWith('/') ? ' (a path that begins with / is taken from the project root)' : ''}`);
  }
  if (!isInside(real, root)) throw outsideRoot(tag, root);
  return real;
}

function outsideRoot(tag: string, root: string): Error {
  return new Error(
    `the page's ${tag} names a file outside the project root ${root} (the folder of the nearest package.json above the page); typemcp ui inlines only files under it, symlinks followed`,
  );
}

/**
 * esbuild's resolution, checked: a relative or absolute import of a file under the root stays
 * under it (a symlink out of the root counts as outside). An import of a package, wherever
 * the package lies (a workspace of a monorepo), is the project's choice, as is what a
 * package imports.
 */
function insideRoot(root: string): import('esbuild').Plugin {
  const checked = Symbol('checked');
  return {
    name: 'typemcp-ui-inside-root',
    setup(build) {
      build.onResolve({ filter: /^(?:\.\.?(?:[\\/]|$)|[\\/]|[a-zA-Z]:[\\/])/ }, async (args) => {
        if (args.pluginData === checked || args.kind === 'entry-point' || !isInside(args.importer, root) || /(?:^|[\\/])node_modules[\\/]/.test(path.relative(root, args.importer))) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: checked, with: args.with });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.namespace === 'file' && !resolved.external) {
          let real = resolved.path;
          try {
            real = fs.realpathSync(resolved.path);
          } catch {
            // esbuild reports a missing file when it loads it
          }
          if (!isInside(real, root)) {
            return { errors: [{ text: `"${args.path}" names a file outside the project root ${root} (the folder of the nearest package.json above the page); import it as a package instead` }] };
          }
        }
        return { path: resolved.path, namespace: resolved.namespace, external: resolved.external, sideEffects: resolved.sideEffects, suffix: resolved.suffix, pluginData: resolved.pluginData };
      });
    },
  };
}

/** esbuild's errors, each with where it is. */
function esbuildMessages(error: unknown): string {
  const errors = (error as { errors?: import('esbuild').Message[] }).errors;
  if (!errors?.length) return error instanceof Error ? error.message : String(error);
  return errors.map(({ text, location }) => (location ? `${location.file}:${location.line}:${location.column}: ${text}` : text)).join('\n');
}

/**
 * The origins the page loads from (`src`, `href` but a link's, every `srcset` candidate), for
 * `resourceDomains`: each a well-formed http(s) URL with a host name, else the page is refused.
 */
function loadedOrigins(html: string): string[] {
  const origins = new Set<string>();
  for (const [, name, attributes] of html.matchAll(TAG)) {
    const element = name.toLowerCase();
    if (NOT_LOADS.has(element)) continue;
    for (const [, attribute, double, single, unquoted] of attributes.matchAll(LOAD_ATTRIBUTE)) {
      const value = double ?? single ?? unquoted;
      const kind = attribute.toLowerCase();
      if (element === 'base') {
        if (kind === 'href') throw new Error(`the page's <base href="${value}"> would send the page's other relative URLs elsewhere than typemcp ui reads them from; remove it and write those URLs in full`);
        continue;
      }
      for (const url of kind === 'srcset' ? srcsetUrls(value) : [value.trim()]) {
        if (/^[\\/]{2}/.test(url)) throw new Error(`the page's <${element} ${kind}>: "${url}" has no scheme, and the built page is served from a ui:// URI; write https://${url.replace(/^[\\/]+/, '')}`);
        if (/^https?:/i.test(url)) origins.add(pageOrigin(url, `<${element} ${kind}>`));
      }
    }
  }
  return [...origins].sort();
}

/** The URLs of a `srcset`, parsed as HTML does: a URL ends at white space (commas at its end dropped), its descriptors at a comma outside parentheses. */
function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  let at = 0;
  while (at < srcset.length) {
    while (at < srcset.length && /[\s,]/.test(srcset[at])) at++;
    const start = at;
    while (at < srcset.length && !/\s/.test(srcset[at])) at++;
    let url = srcset.slice(start, at);
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      for (let depth = 0; at < srcset.length && !(srcset[at] === ',' && depth <= 0); at++) depth += srcset[at] === '(' ? 1 : srcset[at] === ')' ? -1 : 0;
    }
    if (url) urls.push(url);
  }
  return urls;
}

/** A host name (letters, digits and hyphens in dot-separated labels), an IPv4 or a bracketed IPv6 address, as URL gives it. */
function isHostName(host: string): boolean {
  if (/^\[[0-9a-f:.]+\]$/i.test(host)) return true;
  return host.split('.').every((label) => /^(?!-)[a-z0-9-]{1,63}(?<!-)$/.test(label));
}

/** The origin of a URL the page loads, for the CSP: refused unless it is http(s) with a real host name. */
function pageOrigin(url: string, where: string): string {
  const refuse = (reason: string) =>
    new Error(`the page's ${where} loads "${url}": ${reason}; typemcp ui declares only origins with a host name, such as https://cdn.example.com, in the CSP's resourceDomains`);
  const authority = /^https?:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  if (authority === '') throw refuse('it has no host');
  if (authority.includes('@')) throw refuse('it has a user name (user@host)');
  if (authority.includes('\\')) throw refuse('it has a backslash, which browsers take for a /');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('it is not a well-formed URL');
  }
  if (parsed.username || parsed.password) throw refuse('it has a user name (user@host)');
  if (parsed.hostname.includes('*')) throw refuse('its host is a wildcard');
  if (!isHostName(parsed.hostname)) throw refuse('its host is not a host name');
  return parsed.origin;
}

/**
 * A `--connect` origin: http(s) or ws(s), a host name or a leading `*.` over one of two labels
 * or more (`https://*.example.com`, as AppCsp takes); no user name.
 */
function originOf(text: string): string {
  const refuse = () => new UsageError(`--connect takes an origin such as https://api.example.com, not "${text}"`);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw refuse();
  }
  if (!/^(?:https?|wss?):$/.test(parsed.protocol) || parsed.username || parsed.password || /[@\\]/.test(/^[a-z]+:\/\/([^/?#]*)/i.exec(text)?.[1] ?? '@')) throw refuse();
  const host = parsed.hostname.replace(/^\*\.(?=[^.]+\.[^.]+)/, '');
  if (!isHostName(host)) throw refuse();
  return parsed.origin;
}
