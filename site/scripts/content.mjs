// The site's pages: docs/ as it is in the repository, copied to site/src (VitePress's source
// folder, inside this package so that the pages resolve the site's dependencies), with the home
// page (site/home.md) as src/index.md.
//
//   node scripts/content.mjs           copies once
//   node scripts/content.mjs --watch   copies again whenever a file of docs/ changes (npm run dev)
import { cpSync, existsSync, mkdirSync, rmSync, watch } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const site = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const docs = path.join(site, '..', 'docs');
const src = path.join(site, 'src');

function copyAll() {
  rmSync(src, { recursive: true, force: true });
  mkdirSync(src, { recursive: true });
  cpSync(docs, src, { recursive: true });
  cpSync(path.join(site, 'home.md'), path.join(src, 'index.md'));
}

copyAll();
if (process.argv.includes('--watch')) {
  watch(docs, { recursive: true }, (_event, file) => {
    if (!file) return;
    const from = path.join(docs, file);
    const to = path.join(src, file);
    if (existsSync(from)) cpSync(from, to, { recursive: true });
    else rmSync(to, { recursive: true, force: true });
  });
  watch(path.join(site, 'home.md'), () => cpSync(path.join(site, 'home.md'), path.join(src, 'index.md')));
}
