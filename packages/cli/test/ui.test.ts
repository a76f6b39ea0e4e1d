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
