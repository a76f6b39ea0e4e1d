import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildUi } from '../src/commands/ui';
import { buildCli, runCli } from './support';

function uiFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-ui-'));
  fs.writeFileSync(
    path.join(dir, 'page.html'),
    [
      '<!doctype html><html><head>',
      '<link rel="stylesheet" href="./page.css">',
      '<link rel="stylesheet" href="https://fonts.example.com/inter.css">',
      '<script src="https://cdn.example.com/chart.js"></script>',
      '</head><body><img src="https://img.example.com/logo.png"><p id="out"></p>',
      '<script type="module" src="./page.ts"></script>',
      '</body></html>',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'page.css'), 'p { color: red; }\n');
  fs.writeFileSync(path.join(dir, 'greet.ts'), "export const greet = (name: string): string => `<\\/script> hello ${name}`;\n");
  fs.writeFileSync(path.join(dir, 'page.ts'), "import { greet } from './greet';\ndocument.getElementById('out')!.textContent = greet('ui') + '</script>';\n");
  return dir;
}

describe('typemcp ui', () => {
  it('inlines local scripts (bundled, with their imports) and stylesheets; remote ones stay, their origins become the CSP', async () => {
    const dir = uiFolder();
    try {
      const built = await buildUi({ page: path.join(dir, 'page.html'), outdir: path.join(dir, 'out'), connect: ['https://api.example.com/v1', 'https://api.example.com'], minify: false });
      expect(built.csp).toEqual({
        resourceDomains: ['https://cdn.example.com', 'https://fonts.example.com', 'https://img.example.com'],
        connectDomains: ['https://api.example.com'],
      });
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'out', 'page.csp.json'), 'utf8'))).toEqual(built.csp);
      const html = fs.readFileSync(path.join(dir, 'out', 'page.html'), 'utf8');
      expect(html).toBe(built.html);
      expect(html).toContain('<style>p { color: red; }\n</style>');
      expect(html).toContain('<link rel="stylesheet" href="https://fonts.example.com/inter.css">');
      expect(html).toContain('<script src="https://cdn.example.com/chart.js"></script>');
      expect(html).not.toContain('src="./page.ts"');
      const inline = /<script type="module">([\s\S]*?)<\/script>/.exec(html)![1];
      // The imported module is in, and no "</script" inside can end the element early.
      expect(inline).toContain('hello ${name}');
      expect(inline).not.toMatch(/<\/script/i);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs from the command line, and says what is wrong', () => {
    buildCli();
    const dir = uiFolder();
    try {
      const built = runCli(['ui', path.join(dir, 'page.html'), '--outdir', path.join(dir, 'dist')]);
      expect(built.status).toBe(0);
      expect(built.stderr).toMatch(/built .*page\.html \(\d+\.\d KiB\) and .*page\.csp\.json in \d+ ms/);
      expect(fs.existsSync(path.join(dir, 'dist', 'page.html'))).toBe(true);
      expect(runCli(['ui'])).toMatchObject({ status: 2, stderr: expect.stringContaining('the UI page is missing: typemcp ui <page.html>') });
      expect(runCli(['ui', path.join(dir, 'nope.html')])).toMatchObject({ status: 2, stderr: expect.stringContaining('there is no UI page at') });
      expect(runCli(['ui', path.join(dir, 'page.html'), '--outdir', path.join(dir, 'x'), '--connect', 'not a url'])).toMatchObject({
        status: 2,
        stderr: expect.stringContaining('--connect takes an origin such as https://api.example.com, not "not a url"'),
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A project in a temp folder, as an attacker who writes the page would find it: `secret.txt`
 * and `outside.js` beside the project (not in it), the page in `proj/ui/`, proj's package.json
 * making proj the project root.
 */
function project(page: string, files: Record<string, string> = {}): { base: string; root: string; ui: string; run: (...args: string[]) => ReturnType<typeof runCli> } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-ui-root-')));
  const root = path.join(base, 'proj');
  const ui = path.join(root, 'ui');
  fs.mkdirSync(ui, { recursive: true });
  fs.writeFileSync(path.join(base, 'secret.txt'), 'TOP-SECRET { color: red }\n');
  fs.writeFileSync(path.join(base, 'outside.js'), "document.title = 'TOP-SECRET';\n");
  fs.writeFileSync(path.join(root, 'package.json'), '{ "name": "proj", "private": true }\n');
  fs.writeFileSync(path.join(ui, 'page.html'), `<!doctype html><html><head>${page}</head><body></body></html>\n`);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return { base, root, ui, run: (...args) => runCli(['ui', 'ui/page.html', '--outdir', 'out', '--no-minify', ...args], root) };
}

/** What the build wrote, all of it: nothing of the secret may be in it. */
function written(root: string): string {
  const out = path.join(root, 'out');
  return fs.existsSync(out) ? fs.readdirSync(out).map((name) => fs.readFileSync(path.join(out, name), 'utf8')).join('\n') : '';
}

describe('typemcp ui keeps to the project and to origins it can declare', () => {
  beforeAll(buildCli);
  const folders: string[] = [];
  const make = (...args: Parameters<typeof project>) => {
    const made = project(...args);
    folders.push(made.base);
    return made;
  };
  afterAll(() => {
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  it.each([
    ['a stylesheet in the folder above the root', '<link rel="stylesheet" href="../../secret.txt">', '<link rel="stylesheet" href="../../secret.txt">'],
    ['a stylesheet by absolute path, taken from the root, stepping out of it', '<link rel="stylesheet" href="/../secret.txt">', '<link rel="stylesheet" href="/../secret.txt">'],
    ['a stylesheet spelled with %2e%2e', '<link rel="stylesheet" href="%2e%2e/%2e%2e/secret.txt">', '<link rel="stylesheet" href="%2e%2e/%2e%2e/secret.txt">'],
    ['a script in the folder above the root', '<script src="../../outside.js"></script>', '<script src="../../outside.js">'],
  ])('refuses %s, naming the reference and the root; nothing is written', (_what, tag, named) => {
    const { root, run } = make(tag);
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${named} names a file outside the project root ${root}`);
    expect(written(root)).toBe('');
  });

  it('takes /x from the project root, and ../x inside the root; refuses a symlink out of it, file or folder', () => {
    const inside = make('<link rel="stylesheet" href="/styles/site.css"><link rel="stylesheet" href="../shared.css?v=2">', {
      'styles/site.css': '.site { color: blue; }',
      'shared.css': '.shared { color: green; }',
    });
    expect(inside.run()).toMatchObject({ status: 0 });
    expect(written(inside.root)).toContain('<style>.site { color: blue; }</style><style>.shared { color: green; }</style>');

    // The secret's own absolute path is taken from the root too: no such file there.
    const absolute = make('');
    const secret = path.join(absolute.base, 'secret.txt');
    fs.writeFileSync(path.join(absolute.ui, 'page.html'), `<link rel="stylesheet" href="${secret}">`);
    expect(absolute.run()).toMatchObject({ status: 1, stderr: expect.stringContaining(`<link rel="stylesheet" href="${secret}"> names ${path.join(absolute.root, secret)}, which does not exist`) });
    expect(written(absolute.root)).toBe('');

    const file = make('<link rel="stylesheet" href="./linked.css">');
    fs.symlinkSync(path.join(file.base, 'secret.txt'), path.join(file.ui, 'linked.css'));
    const refusedFile = file.run();
    expect(refusedFile).toMatchObject({ status: 1, stderr: expect.stringContaining(`<link rel="stylesheet" href="./linked.css"> names a file outside the project root ${file.root}`) });
    expect(written(file.root)).not.toContain('TOP-SECRET');

    const folder = make('<script src="./lib/outside.js"></script>');
    fs.symlinkSync(folder.base, path.join(folder.ui, 'lib'), 'dir');
    expect(folder.run()).toMatchObject({ status: 1, stderr: expect.stringContaining(`<script src="./lib/outside.js"> names a file outside the project root ${folder.root}`) });
    expect(written(folder.root)).toBe('');
  });

  it("refuses a script's relative import out of the root; a package import (a workspace elsewhere) is the project's choice", () => {
    const escape = make('<script type="module" src="./page.ts"></script>', { 'ui/page.ts': "import secret from '../../secret.txt';\ndocument.title = secret;\n" });
    const refused = escape.run();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`"../../secret.txt" names a file outside the project root ${escape.root}`);
    expect(written(escape.root)).toBe('');

    const workspace = make('<script type="module" src="./page.ts"></script>', { 'ui/page.ts': "import { shared } from 'shared-ui';\ndocument.title = shared;\n" });
    fs.mkdirSync(path.join(workspace.base, 'shared-ui'));
    fs.writeFileSync(path.join(workspace.base, 'shared-ui', 'package.json'), '{ "name": "shared-ui", "main": "index.js" }\n');
    fs.writeFileSync(path.join(workspace.base, 'shared-ui', 'index.js'), "export const shared = 'from the workspace';\n");
    fs.mkdirSync(path.join(workspace.root, 'node_modules'));
    fs.symlinkSync(path.join(workspace.base, 'shared-ui'), path.join(workspace.root, 'node_modules', 'shared-ui'), 'dir');
    expect(workspace.run()).toMatchObject({ status: 0 });
    expect(written(workspace.root)).toContain('from the workspace');
  });

  it.each([
    ['a file: URL', '<link rel="stylesheet" href="file:///etc/passwd">', '<link rel="stylesheet" href="file:///etc/passwd"> is neither a file of the project nor an http(s) URL'],
    ['a data: URL', '<script src="data:text/javascript,alert(1)"></script>', '<script src="data:text/javascript,alert(1)"> is neither a file of the project nor an http(s) URL'],
    ['a protocol-relative URL', '<script src="//cdn.example.com/x.js"></script>', '"//cdn.example.com/x.js" has no scheme'],
    ['a wildcard host', '<img src="https://*">', '"https://*": its host is a wildcard'],
    ['a wildcard host, unquoted', '<img src=https://*/logo.png>', '"https://*/logo.png": its host is a wildcard'],
    ['a wildcard subdomain', '<img src="https://*.example.com/logo.png">', '"https://*.example.com/logo.png": its host is a wildcard'],
    ['a percent-encoded wildcard', '<img src="https://%2a.example.com/logo.png">', 'its host is a wildcard'],
    ['a user name', '<script src="https://user@cdn.example.com/x.js"></script>', '"https://user@cdn.example.com/x.js": it has a user name'],
    ['a user name behind a backslash', '<img src="https://evil.example\\@cdn.example.com/x.png">', 'it has a user name'],
    ['an empty host', '<img src="https:///logo.png">', '"https:///logo.png": it has no host'],
    ['a host that is not a host name', '<img src="https://exa_mple.com/logo.png">', 'its host is not a host name'],
    ['a malformed URL', '<img src="https://example.com:99999/logo.png">', 'it is not a well-formed URL'],
    ['a wildcard among srcset candidates', '<img srcset="https://img.example.com/a.png 1x, https://*/b.png 2x">', '"https://*/b.png": its host is a wildcard'],
    ['<base href>', '<base href="https://evil.example/">', '<base href="https://evil.example/">'],
  ])('refuses %s in the page, saying why', (_what, tag, message) => {
    const { root, run } = make(tag);
    const result = run();
    expect(result).toMatchObject({ status: 1, stderr: expect.stringContaining(message) });
    expect(written(root)).toBe('');
  });

  it('declares ports, IPv6 literals, punycode hosts and srcset origins; a link is no load', () => {
    const { root, run } = make(
      [
        '<script src="https://cdn.example.com:8443/x.js"></script>',
        '<img src="http://[::1]:8080/a.png">',
        '<img src="https://bücher.example/b.png">',
        '<img srcset="https://img.example.com/a.png 1x, https://img2.example.com/b.png 2x, ./local.png 3x">',
        '<img src="HTTPS://Upper.Example.com/c.png">',
      ].join(''),
      { 'ui/body.html': '' },
    );
    fs.appendFileSync(path.join(root, 'ui', 'page.html'), '<a href="https://docs.example.com/help">help</a>\n');
    expect(run()).toMatchObject({ status: 0 });
    expect(JSON.parse(fs.readFileSync(path.join(root, 'out', 'page.csp.json'), 'utf8'))).toEqual({
      resourceDomains: ['http://[::1]:8080', 'https://cdn.example.com:8443', 'https://img.example.com', 'https://img2.example.com', 'https://upper.example.com', 'https://xn--bcher-kva.example'],
    });
  });

  it('takes a wildcard subdomain in --connect (the author declares it), not a wildcard host, a user name or another scheme', () => {
    const { root, run } = make('');
    expect(run('--connect', 'https://*.example.com', '--connect', 'wss://live.example.com/socket')).toMatchObject({ status: 0 });
    expect(JSON.parse(fs.readFileSync(path.join(root, 'out', 'page.csp.json'), 'utf8'))).toEqual({ connectDomains: ['https://*.example.com', 'wss://live.example.com'] });
    for (const origin of ['https://*', 'https://*.com', 'https://user@api.example.com', 'ftp://files.example.com', 'https://']) {
      expect(run('--connect', origin)).toMatchObject({ status: 2, stderr: expect.stringContaining(`--connect takes an origin such as https://api.example.com, not "${origin}"`) });
    }
  });
});
