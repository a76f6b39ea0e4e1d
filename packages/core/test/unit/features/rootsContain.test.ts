import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isInsideRoots } from '../../../src/features/rootsContain';

/*
 * tmp/
 *   root/            the client's root
 *     sub/file.txt
 *     sub/deeper/
 *     %2e%2e/        a directory literally named "%2e%2e"
 *     link-in  -> sub
 *     link-out -> ../outside
 *     dangling -> ../outside/missing
 *     loop     -> loop
 *   root-evil/x.txt  a sibling whose name starts with the root's
 *   outside/secret.txt
 *   root-link -> root
 */
let tmp: string;
let root: string;
let rootUri: string;
const roots = () => [{ uri: rootUri }];
const uri = (p: string) => pathToFileURL(p).href;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'typemcp-roots-'));
  root = path.join(tmp, 'root');
  await fs.mkdir(path.join(root, 'sub', 'deeper'), { recursive: true });
  await fs.mkdir(path.join(root, '%2e%2e'));
  await fs.writeFile(path.join(root, 'sub', 'file.txt'), 'in');
  await fs.mkdir(path.join(tmp, 'outside'));
  await fs.writeFile(path.join(tmp, 'outside', 'secret.txt'), 'out');
  await fs.mkdir(path.join(tmp, 'root-evil'));
  await fs.writeFile(path.join(tmp, 'root-evil', 'x.txt'), 'evil');
  await fs.symlink(path.join(root, 'sub'), path.join(root, 'link-in'));
  await fs.symlink(path.join(tmp, 'outside'), path.join(root, 'link-out'));
  await fs.symlink(path.join(tmp, 'outside', 'missing'), path.join(root, 'dangling'));
  await fs.symlink(path.join(root, 'loop'), path.join(root, 'loop'));
  await fs.symlink(root, path.join(tmp, 'root-link'));
  rootUri = uri(root);
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('isInsideRoots', () => {
  it('accepts the root itself and what lies under it, as a path or a file URI', async () => {
    const file = path.join(root, 'sub', 'file.txt');
    await expect(isInsideRoots(root, roots())).resolves.toBe(true);
    await expect(isInsideRoots(file, roots())).resolves.toBe(true);
    await expect(isInsideRoots(uri(file), roots())).resolves.toBe(true);
    await expect(isInsideRoots(`${rootUri}/`, [{ uri: `${rootUri}/` }])).resolves.toBe(true);
  });

  it('accepts a target that does not exist yet under an existing directory', async () => {
    await expect(isInsideRoots(path.join(root, 'sub', 'deeper', 'new', 'file.txt'), roots())).resolves.toBe(true);
    await expect(isInsideRoots(path.join(root, 'new.txt'), roots())).resolves.toBe(true);
  });

  it('refuses any .. segment, since through a symlink it names another place than its text', async () => {
    await expect(isInsideRoots(path.join(root, 'sub') + '/../sub/file.txt', roots())).resolves.toBe(false);
    // link-out/.. is the parent of the link's target (outside), not the root itself.
    await expect(isInsideRoots(path.join(root, 'link-out') + '/../secret.txt', roots())).resolves.toBe(false);
    await expect(isInsideRoots(`${rootUri}/sub/%2e%2e/sub/file.txt`, roots())).resolves.toBe(false);
    await expect(isInsideRoots(root + '/sub/../../outside/secret.txt', roots())).resolves.toBe(false);
    await expect(isInsideRoots(root + '/../outside/secret.txt', roots())).resolves.toBe(false);
    await expect(isInsideRoots(`${rootUri}/sub/../../outside/secret.txt`, roots())).resolves.toBe(false);
  });

  it('follows symlinks: one leading outside is outside, one staying inside is inside', async () => {
    await expect(isInsideRoots(path.join(root, 'link-out', 'secret.txt'), roots())).resolves.toBe(false);
    await expect(isInsideRoots(path.join(root, 'link-out'), roots())).resolves.toBe(false);
    await expect(isInsideRoots(path.join(root, 'link-out', 'new', 'file.txt'), roots())).resolves.toBe(false);
    await expect(isInsideRoots(path.join(root, 'link-in', 'file.txt'), roots())).resolves.toBe(true);
  });

  it('rejects targets through a dangling symlink or a symlink loop', async () => {
    await expect(isInsideRoots(path.join(root, 'dangling'), roots())).resolves.toBe(false);
    await expect(isInsideRoots(path.join(root, 'dangling', 'created-later.txt'), roots())).resolves.toBe(false);
    await expect(isInsideRoots(path.join(root, 'loop', 'x'), roots())).resolves.toBe(false);
  });

  it('resolves the roots\' own symlinks', async () => {
    const viaLink = path.join(tmp, 'root-link');
    await expect(isInsideRoots(path.join(root, 'sub', 'file.txt'), [{ uri: uri(viaLink) }])).resolves.toBe(true);
    await expect(isInsideRoots(path.join(viaLink, 'sub', 'file.txt'), roots())).resolves.toBe(true);
    await expect(isInsideRoots(path.join(tmp, 'outside', 'secret.txt'), [{ uri: uri(viaLink) }])).resolves.toBe(false);
  });

  it('does not take a sibling sharing the root\'s name as a prefix for a child', async () => {
    await expect(isInsideRoots(path.join(tmp, 'root-evil', 'x.txt'), roots())).resolves.toBe(false);
    await expect(isInsideRoots(path.join(tmp, 'root-evil'), roots())).resolves.toBe(false);
    await expect(isInsideRoots(path.join(tmp, 'rootx'), roots())).resolves.toBe(false);
  });

  it('keeps names that merely start with two dots inside', async () => {
    await expect(isInsideRoots(path.join(root, '..hidden'), roots())).resolves.toBe(true);
    await expect(isInsideRoots(path.join(root, '...', 'x'), roots())).resolves.toBe(true);
  });

  it('decodes URIs exactly once and rejects encoded separators', async () => {
    // %2e%2e is "..", which the URL parser would resolve textually: refused like "..".
    await expect(isInsideRoots(`${rootUri}/%2e%2e/outside/secret.txt`, roots())).resolves.toBe(false);
    await expect(isInsideRoots(`${rootUri}/sub/%2E%2E/sub/file.txt`, roots())).resolves.toBe(false);
    await expect(isInsideRoots(`${rootUri}/sub/.%2e/sub/file.txt`, roots())).resolves.toBe(false);
    // An encoded '/' could hide a segment: refused outright.
    await expect(isInsideRoots(`${rootUri}/sub%2Ffile.txt`, roots())).resolves.toBe(false);
    await expect(isInsideRoots(`${rootUri}/%2e%2e%2Foutside%2Fsecret.txt`, roots())).resolves.toBe(false);
    // Double encoding stays a literal name after one decoding: the directory "%2e%2e" inside the root.
    await expect(isInsideRoots(`${rootUri}/%252e%252e/outside`, roots())).resolves.toBe(true);
    await expect(isInsideRoots(`${rootUri}/sub/file%2Etxt`, roots())).resolves.toBe(true);
  });

  it('rejects relative paths instead of resolving them against the working directory', async () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      await expect(isInsideRoots('sub/file.txt', roots())).resolves.toBe(false);
      await expect(isInsideRoots('./sub/file.txt', roots())).resolves.toBe(false);
      await expect(isInsideRoots('.', roots())).resolves.toBe(false);
      await expect(isInsideRoots('', roots())).resolves.toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });

  it('rejects NUL bytes, raw or percent-encoded', async () => {
    await expect(isInsideRoots(`${root}/sub/file.txt\0`, roots())).resolves.toBe(false);
    await expect(isInsideRoots(`${root}/sub\0/../../outside`, roots())).resolves.toBe(false);
    await expect(isInsideRoots(`${rootUri}/sub/file.txt%00.png`, roots())).resolves.toBe(false);
  });

  it('rejects non-file targets and file URIs with a foreign host', async () => {
    await expect(isInsideRoots('https://example.com/sub/file.txt', roots())).resolves.toBe(false);
    await expect(isInsideRoots(`file://evil.example${root}/sub/file.txt`, roots())).resolves.toBe(false);
    await expect(isInsideRoots(`file://localhost${root}/sub/file.txt`, roots())).resolves.toBe(true);
  });

  it('ignores roots that are not file URIs or cannot be parsed', async () => {
    const file = path.join(root, 'sub', 'file.txt');
    await expect(isInsideRoots(file, [])).resolves.toBe(false);
    await expect(isInsideRoots(file, [{ uri: 'https://example.com/' }])).resolves.toBe(false);
    await expect(isInsideRoots(file, [{ uri: root }])).resolves.toBe(false); // a bare path is not a file URI
    await expect(isInsideRoots(file, [{ uri: 'file:///%2F' }, { uri: 'file://host/x' }])).resolves.toBe(false);
    await expect(isInsideRoots(file, [{ uri: 'https://example.com/' }, { uri: rootUri }])).resolves.toBe(true);
  });

  it('accepts a target inside any one of several roots', async () => {
    const both = [{ uri: uri(path.join(tmp, 'outside')) }, { uri: rootUri }];
    await expect(isInsideRoots(path.join(tmp, 'outside', 'secret.txt'), both)).resolves.toBe(true);
    await expect(isInsideRoots(path.join(root, 'sub', 'file.txt'), both)).resolves.toBe(true);
    await expect(isInsideRoots(path.join(tmp, 'root-evil', 'x.txt'), both)).resolves.toBe(false);
  });

  it('treats a root that does not exist yet by its deepest existing ancestor', async () => {
    const future = path.join(root, 'future');
    await expect(isInsideRoots(path.join(future, 'a.txt'), [{ uri: uri(future) }])).resolves.toBe(true);
    await expect(isInsideRoots(path.join(root, 'sub', 'file.txt'), [{ uri: uri(future) }])).resolves.toBe(false);
  });
});
