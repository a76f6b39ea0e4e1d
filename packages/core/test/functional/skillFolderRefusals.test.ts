import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpServer } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { failure } from './failure';

/**
 * What a skills folder refuses to serve, checked on real folders with real links: a link is
 * judged by the file it resolves to (its real path), and sizes by stat before any read.
 */

const folders: string[] = [];
function skillFolder(files: Record<string, string | Buffer>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-skill-refusals-'));
  folders.push(root);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
  return root;
}

const servers: McpServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function newServer(onError?: (what: string) => void): McpServer {
  const server = new McpServer({ name: 'skill-refusals', version: '1.0.0', ...(onError ? { onError } : {}) });
  servers.push(server);
  return server;
}

async function clientOf(server: McpServer): Promise<TestClient> {
  const client = await createTestClient(server, { protocolVersion: '2026-07-28' });
  clients.push(client);
  return client;
}

function startupError(act: () => unknown): { code: string; message: string } {
  try {
    act();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a startup error');
}

const skill = (name: string) => `---\nname: ${name}\ndescription: Does things\n---\n`;

/** The file URIs of a skill's manifest, as a client gets them. */
async function manifestOf(client: TestClient, uri: string): Promise<string[]> {
  const { skill: entry } = (await client.request('skills/get', { uri })) as { skill: { resources: Array<{ uri: string }> } };
  return entry.resources.map((resource) => resource.uri);
}

/** A link at `link` (under `root`) whose target is `target`, written as given (relative or not). */
function link(root: string, target: string, at: string): void {
  fs.mkdirSync(path.dirname(path.join(root, at)), { recursive: true });
  fs.symlinkSync(target, path.join(root, at));
}

describe('links are judged by their real path', () => {
  it('a link to a dotfile in the folder (alpha/notes.md -> ../.env) is a startup error naming the link', () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), '.env': 'API_KEY=secret\n' });
    link(folder, '../.env', 'alpha/notes.md');
    const error = startupError(() => newServer().skills(folder));
    expect(error.code).toBe('INVALID_SKILL');
    expect(error.message).toMatch(/alpha\/notes\.md: links to .*\/\.env, a hidden file or directory \("\.env"\)/);
  });

  it('a link to a dot directory (alpha/gitdir -> .git) is a startup error', () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), 'alpha/.git/config': '[remote "origin"]\n\turl = https://token@example.com/x\n' });
    link(folder, '.git', 'alpha/gitdir');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/gitdir: links to .*alpha\/\.git, a hidden file or directory \("\.git"\)/);
  });

  it('a link whose real path has a dot component deep down (docs/.private/notes) is refused', () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), 'alpha/docs/.private/notes/plan.md': 'private\n' });
    link(folder, 'docs/.private/notes', 'alpha/notes');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/notes: links to .*alpha\/docs\/\.private\/notes, a hidden file or directory \("\.private"\)/);
  });

  it('a chain of links is followed to its end: alpha/a -> b -> ../.env is refused', () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), '.env': 'API_KEY=secret\n' });
    link(folder, '../.env', 'alpha/b');
    link(folder, 'b', 'alpha/a');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/a: links to .*\/\.env, a hidden file or directory/);
  });

  it("a link to a file outside the skill's own folder, though inside the skills folder, is refused", () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), 'beta/SKILL.md': skill('beta'), 'beta/private.md': 'beta only\n', 'shared/notes.md': 'shared\n' });
    link(folder, '../beta/private.md', 'alpha/private.md');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/private\.md: links to .*beta\/private\.md, outside the skill's folder .*alpha; a skill serves only its own files/);
    fs.unlinkSync(path.join(folder, 'alpha', 'private.md'));
    link(folder, '../shared', 'alpha/shared');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/shared: links to .*shared, outside the skill's folder/);
    fs.unlinkSync(path.join(folder, 'alpha', 'shared'));
    // A directory read before (beta comes before zeta) is refused the same way, not skipped.
    fs.mkdirSync(path.join(folder, 'zeta'));
    fs.writeFileSync(path.join(folder, 'zeta', 'SKILL.md'), skill('zeta'));
    link(folder, '../beta', 'zeta/beta');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/zeta\/beta: links to .*beta, outside the skill's folder .*zeta;/);
  });

  it("a nested skill's link to its enclosing skill's file is outside the nested skill", () => {
    const folder = skillFolder({ 'outer/SKILL.md': skill('outer'), 'outer/notes.md': 'outer\n', 'outer/inner/SKILL.md': skill('inner') });
    link(folder, '../notes.md', 'outer/inner/notes.md');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/outer\/inner\/notes\.md: links to .*outer\/notes\.md, outside the skill's folder .*outer\/inner;/);
  });

  it('a link to a directory above the folder, and a link to /proc/self/environ, are refused', () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha') });
    link(folder, '../..', 'alpha/up');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/up: links to .*, outside the skills folder/);
    fs.unlinkSync(path.join(folder, 'alpha', 'up'));
    if (fs.existsSync('/proc/self/environ')) {
      link(folder, '/proc/self/environ', 'alpha/environ.txt');
      expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/environ\.txt: links to \/proc\/.*environ, outside the skills folder/);
    }
  });

  it('a link that cannot be followed (dangling, or a loop) is a startup error naming it', () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha') });
    link(folder, 'missing.md', 'alpha/dangling.md');
    expect(startupError(() => newServer().skills(folder))).toMatchObject({ code: 'INVALID_SKILL', message: expect.stringMatching(/alpha\/dangling\.md: the link cannot be followed/) });
    fs.unlinkSync(path.join(folder, 'alpha', 'dangling.md'));
    link(folder, 'loop-b', 'alpha/loop-a');
    link(folder, 'loop-a', 'alpha/loop-b');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/loop-a: the link cannot be followed/);
  });

  it('outside every skill, a link to a hidden name is left out, not followed: nothing there is served', async () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), '.claude/notes.md': 'agent notes\n', '.hidden/sneaky/SKILL.md': skill('sneaky') });
    link(folder, '.claude/notes.md', 'CLAUDE.md');
    link(folder, '.hidden', 'exposed');
    const client = await clientOf(newServer().skills(folder));
    expect(((await client.request('skills/list')).skills as Array<{ uri: string }>).map((entry) => entry.uri)).toEqual(['skill://alpha/SKILL.md']);
    expect((await failure(client.request('resources/read', { uri: 'skill://exposed/sneaky/SKILL.md' }))).code).toBe(-32602);
  });

  it("a skill's SKILL.md that is a refused link fails that skill, naming the link", () => {
    const folder = skillFolder({ '.drafts/SKILL.md': skill('alpha') });
    fs.mkdirSync(path.join(folder, 'alpha'));
    link(folder, '../.drafts/SKILL.md', 'alpha/SKILL.md');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/alpha\/SKILL\.md: links to .*\.drafts\/SKILL\.md, a hidden file or directory \("\.drafts"\)/);
  });

  it("links that stay inside the skill are served, as a client sees: through a dot-named link too, since only the real path counts", async () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), 'alpha/docs/guide.md': 'Guide\n' });
    link(folder, 'docs/guide.md', 'alpha/guide.md');
    link(folder, 'docs', 'alpha/reference');
    link(folder, 'docs/guide.md', 'alpha/.hop');
    link(folder, '.hop', 'alpha/hopped.md');
    const client = await clientOf(newServer().skills(folder));
    expect(await manifestOf(client, 'skill://alpha/SKILL.md')).toEqual(['skill://alpha/SKILL.md', 'skill://alpha/docs/guide.md', 'skill://alpha/guide.md', 'skill://alpha/hopped.md']);
    expect((await client.request('resources/read', { uri: 'skill://alpha/hopped.md' })).contents).toEqual([{ uri: 'skill://alpha/hopped.md', mimeType: 'text/markdown', text: 'Guide\n' }]);
  });

  it('a FIFO, or a link to one, is left out by its file type and never opened (no hang)', async () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), 'alpha/notes.md': 'Notes\n' });
    execFileSync('mkfifo', [path.join(folder, 'alpha', 'pipe.md')]);
    link(folder, 'pipe.md', 'alpha/piped.md');
    const opened = jest.spyOn(fs, 'openSync');
    const client = await clientOf(newServer().skills(folder));
    expect(await manifestOf(client, 'skill://alpha/SKILL.md')).toEqual(['skill://alpha/SKILL.md', 'skill://alpha/notes.md']);
    expect(opened.mock.calls.map(([file]) => String(file)).filter((file) => file.includes('pipe'))).toEqual([]);
    expect((await failure(client.request('resources/read', { uri: 'skill://alpha/piped.md' }))).code).toBe(-32602);
  });
});

describe('a watched folder never serves a bad link added after start', () => {
  it('a link to the dotfile appears: the reload is refused and reported, the link is neither listed nor readable, what was served stays', async () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), 'alpha/guide.md': 'Guide\n', '.env': 'API_KEY=secret\n' });
    const errors: Array<{ what: string; error: unknown }> = [];
    const server = new McpServer({ name: 'watched', version: '1', onError: (what, error) => void errors.push({ what, error }) }).skills(folder, { watch: true });
    servers.push(server);
    const client = await clientOf(server);
    expect(await manifestOf(client, 'skill://alpha/SKILL.md')).toEqual(['skill://alpha/SKILL.md', 'skill://alpha/guide.md']);

    link(folder, '../.env', 'alpha/notes.md');
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await manifestOf(client, 'skill://alpha/SKILL.md')).toEqual(['skill://alpha/SKILL.md', 'skill://alpha/guide.md']);
    expect((await failure(client.request('resources/read', { uri: 'skill://alpha/notes.md' }))).code).toBe(-32602);
    expect(errors[0].what).toMatch(/reloading the skills failed; the skills read before are still served/);
    expect(String((errors[0].error as Error).message)).toMatch(/alpha\/notes\.md: links to .*\/\.env, a hidden file or directory/);

    // The bad link gone and a good one added: the reload serves it.
    fs.unlinkSync(path.join(folder, 'alpha', 'notes.md'));
    link(folder, 'guide.md', 'alpha/read-me.md');
    const served = ['skill://alpha/SKILL.md', 'skill://alpha/guide.md', 'skill://alpha/read-me.md'];
    for (let i = 0; i < 100 && (await manifestOf(client, 'skill://alpha/SKILL.md')).length < served.length; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await manifestOf(client, 'skill://alpha/SKILL.md')).toEqual(served);
    expect(errors).toHaveLength(1);
  });

  it("a link out of the skill added after start is refused on reload", async () => {
    const folder = skillFolder({ 'alpha/SKILL.md': skill('alpha'), 'beta/SKILL.md': skill('beta'), 'beta/private.md': 'beta only\n' });
    const errors: unknown[] = [];
    const server = new McpServer({ name: 'watched', version: '1', onError: (_what, error) => void errors.push(error) }).skills(folder, { watch: true });
    servers.push(server);
    const client = await clientOf(server);
    link(folder, '../beta/private.md', 'alpha/private.md');
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await failure(client.request('resources/read', { uri: 'skill://alpha/private.md' }))).code).toBe(-32602);
    expect(String((errors[0] as Error).message)).toMatch(/alpha\/private\.md: links to .*beta\/private\.md, outside the skill's folder/);
  });
});

describe('sizes are checked from stat, before any file is read', () => {
  const MiB = 1024 * 1024;

  it('a 600 MB sparse file is refused by its size without being opened or read', () => {
    const folder = skillFolder({ 'huge/SKILL.md': skill('huge') });
    const big = path.join(folder, 'huge', 'blob.bin');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 600 * MiB);
    const touched: string[] = [];
    for (const method of ['readFileSync', 'openSync'] as const) {
      const original = fs[method] as (...args: unknown[]) => unknown;
      jest.spyOn(fs, method).mockImplementation(((file: unknown, ...rest: unknown[]) => {
        touched.push(String(file));
        return original.call(fs, file, ...rest);
      }) as never);
    }
    const started = Date.now();
    const error = startupError(() => newServer().skills(folder));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.code).toBe('INVALID_SKILL');
    expect(error.message).toBe(`${path.join(fs.realpathSync(folder), 'huge', 'blob.bin')}: the file is 629145600 bytes; a skill may hold at most 16777216 (16 MiB)`);
    expect(touched.filter((file) => file.endsWith('blob.bin'))).toEqual([]);
  });

  it("the skill's total is checked from stat too: files each under the limit, over it together, are not read", () => {
    const folder = skillFolder({ 'big/SKILL.md': skill('big') });
    for (const name of ['a.bin', 'b.bin']) fs.truncateSync((fs.writeFileSync(path.join(folder, 'big', name), ''), path.join(folder, 'big', name)), 9 * MiB);
    const read = jest.spyOn(fs, 'readSync');
    const readFile = jest.spyOn(fs, 'readFileSync');
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/big\/SKILL\.md: the skill's files hold 18874\d+ bytes; a skill may hold at most 16777216 \(16 MiB\)/);
    expect(read).not.toHaveBeenCalled();
    expect(readFile).not.toHaveBeenCalled();
  });

  it('a file replaced by another between stat and read is refused, not read', () => {
    const folder = skillFolder({ 'swapped/SKILL.md': skill('swapped'), 'swapped/notes.md': 'notes\n' });
    const notes = path.join(fs.realpathSync(folder), 'swapped', 'notes.md');
    // stat saw another inode than the one open finds at that path.
    const statSync = fs.statSync;
    jest.spyOn(fs, 'statSync').mockImplementation(((file: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stat = statSync(file, options) as fs.Stats;
      if (String(file) === notes) return Object.assign(Object.create(Object.getPrototypeOf(stat)), stat, { ino: stat.ino + 1 });
      return stat;
    }) as never);
    expect(startupError(() => newServer().skills(folder))).toMatchObject({ code: 'INVALID_SKILL', message: `${notes}: changed while it was read (another file took its place)` });
  });

  it('a file that grows between stat and read is refused, not read past the size its stat gave', () => {
    const folder = skillFolder({ 'grows/SKILL.md': skill('grows'), 'grows/log.txt': 'x'.repeat(4096) });
    const log = path.join(fs.realpathSync(folder), 'grows', 'log.txt');
    // stat sees the file as it was (10 bytes); it has 4096 by the time it is read.
    const statSync = fs.statSync;
    jest.spyOn(fs, 'statSync').mockImplementation(((file: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stat = statSync(file, options) as fs.Stats;
      if (String(file) === log) return Object.assign(Object.create(Object.getPrototypeOf(stat)), stat, { size: 10 });
      return stat;
    }) as never);
    const openSync = fs.openSync;
    const logFds = new Set<number>();
    jest.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, ...rest: unknown[]) => {
      const fd = (openSync as (...args: unknown[]) => number)(file, ...rest);
      if (String(file) === log) logFds.add(fd);
      return fd;
    }) as never);
    const closeSync = fs.closeSync;
    jest.spyOn(fs, 'closeSync').mockImplementation((fd: number) => {
      logFds.delete(fd);
      closeSync(fd);
    });
    let asked = 0;
    const readSync = fs.readSync as (...args: unknown[]) => number;
    jest.spyOn(fs, 'readSync').mockImplementation(((fd: number, buffer: unknown, offset: number, length: number, position: unknown) => {
      if (logFds.has(fd)) asked += length;
      return readSync(fd, buffer, offset, length, position);
    }) as never);
    expect(startupError(() => newServer().skills(folder))).toMatchObject({ code: 'INVALID_SKILL', message: `${log}: changed while it was read (it had 10 bytes when listed, and more when read)` });
    // At most the 10 bytes stat gave, and one more to see that the file goes on.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(11);
  });
});
