import 'reflect-metadata';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { injectable } from 'tsyringe';
import { McpServer, metadataStore, Scopes, Skill } from '@typemcp/core';
import type { Principal, SkillContent } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { failure } from './failure';
import type { TestClient } from '@typemcp/testing';

const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
const VERSIONS = ['2025-11-25', '2026-07-28'] as const;

/** A folder of skills under the system's temporary directory, removed after each test. */
const folders: string[] = [];
function skillFolder(files: Record<string, string | Buffer>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-skills-'));
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
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function newServer(): McpServer {
  const server = new McpServer({ name: 'skills-test', version: '1.0.0' });
  servers.push(server);
  return server;
}

async function clientOf(server: McpServer, protocolVersion: string, principal?: Principal): Promise<TestClient> {
  const client = await createTestClient(server, { protocolVersion, ...(principal ? { principal } : {}) });
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

const GIT = ['---', 'name: git-workflow', 'description: Follow the team Git conventions', 'license: MIT', 'metadata:', '  version: "1.0"', '---', '', '# Git', ''].join('\n');
const PDF = ['---', 'name: pdf-processing', 'description: "Work with PDF files: extract, fill"', 'version: 1.0', 'tags: [pdf, forms]', 'released: 2026-01-02', '---', 'Use templates/.', ''].join('\n');
const REFUNDS = ['---', 'name: refunds', 'description: Refund customers', '---', 'See examples/email.md', ''].join('\n');
const PARTIAL = ['---', 'name: partial-refunds', 'description: Refund part of an order', '---', 'Partial', ''].join('\n');

function sampleFolder(): string {
  return skillFolder({
    'git-workflow/SKILL.md': GIT,
    'git-workflow/references/commits.md': '# Commits\n',
    'pdf-processing/SKILL.md': PDF,
    'pdf-processing/templates/invoice.md': 'Invoice\n',
    'pdf-processing/templates/regional/eu invoice.md': 'EU invoice\n',
    'pdf-processing/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]),
    'pdf-processing/.DS_Store': 'hidden',
    'acme/billing/refunds/SKILL.md': REFUNDS,
    'acme/billing/refunds/examples/email.md': 'Dear customer\n',
    'acme/billing/refunds/partial-refunds/SKILL.md': PARTIAL,
    'README.md': 'Not part of any skill',
  });
}

function sha256(bytes: Buffer | Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The bytes a resources/read content stands for: text as UTF-8, a blob decoded. */
function bytesOf(content: Record<string, unknown>): Buffer {
  return typeof content.text === 'string' ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob as string, 'base64');
}

describe.each(VERSIONS)('skills from a folder, protocol %s', (version) => {
  it('declares the extension with directoryRead, and resources', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    expect(client.serverCapabilities.extensions).toEqual({ [SKILLS_EXTENSION]: { directoryRead: true } });
    expect(client.serverCapabilities.resources).toEqual({ subscribe: true, listChanged: true });
  });

  it('lists every skill (nested ones too) with its frontmatter verbatim, as YAML 1.2 types it', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const result = await client.request('skills/list');
    const skills = result.skills as Array<Record<string, any>>;
    expect(skills.map((s) => s.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://acme/billing/refunds/partial-refunds/SKILL.md',
      'skill://git-workflow/SKILL.md',
      'skill://pdf-processing/SKILL.md',
    ]);
    expect(skills[2].frontmatter).toEqual({ name: 'git-workflow', description: 'Follow the team Git conventions', license: 'MIT', metadata: { version: '1.0' } });
    // 1.0 is a number and a date stays a string under the YAML 1.2 core schema.
    expect(skills[3].frontmatter).toEqual({ name: 'pdf-processing', description: 'Work with PDF files: extract, fill', version: 1, tags: ['pdf', 'forms'], released: '2026-01-02' });
    if (version === '2026-07-28') expect(result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    else expect(result).not.toHaveProperty('ttlMs');
    expect(result).not.toHaveProperty('nextCursor');
  });

  it('publishes a complete manifest: every file once, SKILL.md first, nested skills included, hidden files left out', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const { skills } = (await client.request('skills/list')) as { skills: Array<Record<string, any>> };
    const uris = (skill: Record<string, any>) => (skill.resources as Array<{ uri: string }>).map((r) => r.uri);
    expect(uris(skills[0])).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://acme/billing/refunds/examples/email.md',
      'skill://acme/billing/refunds/partial-refunds/SKILL.md',
    ]);
    expect(uris(skills[1])).toEqual(['skill://acme/billing/refunds/partial-refunds/SKILL.md']);
    expect(uris(skills[3])).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/logo.png',
      'skill://pdf-processing/templates/invoice.md',
      'skill://pdf-processing/templates/regional/eu%20invoice.md',
    ]);
  });

  it('serves exactly the bytes the manifest describes: every listed file, read over the protocol and hashed', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const { skills } = (await client.request('skills/list')) as { skills: Array<{ resources: Array<{ uri: string; digest: string; size: number }> }> };
    let files = 0;
    for (const skill of skills) {
      for (const entry of skill.resources) {
        expect(entry.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        const { contents } = (await client.request('resources/read', { uri: entry.uri })) as { contents: Array<Record<string, unknown>> };
        expect(contents).toHaveLength(1);
        const bytes = bytesOf(contents[0]);
        expect({ uri: entry.uri, size: bytes.byteLength, digest: sha256(bytes) }).toEqual({ uri: entry.uri, size: entry.size, digest: entry.digest });
        files++;
      }
    }
    expect(files).toBe(10);
  });

  it('reads SKILL.md as text/markdown, UTF-8 files as text and other bytes as a blob', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const read = async (uri: string) => ((await client.request('resources/read', { uri })) as { contents: Array<Record<string, unknown>> }).contents[0];
    expect(await read('skill://git-workflow/SKILL.md')).toEqual({ uri: 'skill://git-workflow/SKILL.md', mimeType: 'text/markdown', text: GIT });
    expect(await read('skill://pdf-processing/logo.png')).toEqual({ uri: 'skill://pdf-processing/logo.png', mimeType: 'image/png', blob: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]).toString('base64') });
    // Either spelling of a space reaches the file; the contents carry the server's.
    for (const uri of ['skill://pdf-processing/templates/regional/eu%20invoice.md', 'skill://pdf-processing/templates/regional/eu invoice.md']) {
      expect(await read(uri)).toEqual({ uri: 'skill://pdf-processing/templates/regional/eu%20invoice.md', mimeType: 'text/markdown', text: 'EU invoice\n' });
    }
  });

  it('lists each SKILL.md in resources/list with its name, description and text/markdown', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const resources = await client.listResources();
    expect(resources).toContainEqual({ uri: 'skill://git-workflow/SKILL.md', name: 'git-workflow', description: 'Follow the team Git conventions', mimeType: 'text/markdown' });
    expect(resources.map((r) => r.uri).filter((uri) => uri.startsWith('skill://'))).toHaveLength(4);
  });

  it('answers skills/get for a skill, listed or nested, and -32602 for anything else', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const got = await client.request('skills/get', { uri: 'skill://acme/billing/refunds/partial-refunds/SKILL.md' });
    expect(got.skill).toMatchObject({ uri: 'skill://acme/billing/refunds/partial-refunds/SKILL.md', frontmatter: { name: 'partial-refunds' } });
    expect(got).not.toHaveProperty('nextCursor');
    if (version === '2026-07-28') expect(got).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
    for (const uri of ['skill://nope/SKILL.md', 'skill://git-workflow', 'skill://git-workflow/references/commits.md', 'skill://acme/billing/SKILL.md']) {
      const error = await failure(client.request('skills/get', { uri }));
      expect({ code: error.code, message: error.message }).toEqual({ code: -32602, message: `No skill is served at ${uri}` });
    }
    expect((await failure(client.request('skills/get', {}))).message).toBe('skills/get needs a string "uri"');
  });

  it('never reads outside the folder: "..", encoded dots, backslashes, absolute paths and files outside every skill are unknown', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const notFound = version === '2026-07-28' ? -32602 : -32002;
    for (const uri of [
      'skill://git-workflow/../README.md',
      'skill://git-workflow/%2E%2E/README.md',
      'skill://git-workflow/references/..%2F..%2FREADME.md',
      'skill://git-workflow/references\\..\\SKILL.md',
      'skill:///etc/passwd',
      'skill://README.md',
      'skill://pdf-processing/.DS_Store',
      'file:///etc/passwd',
    ]) {
      const error = await failure(client.request('resources/read', { uri }));
      expect({ uri, code: error.code }).toEqual({ uri, code: notFound });
    }
  });

  it('reads directories: a skill root, a directory inside it, the directories above skills', async () => {
    const server = newServer().skills(sampleFolder());
    const client = await clientOf(server, version);
    const dir = async (uri: string) => (await client.request('resources/directory/read', { uri })).resources;
    expect(await dir('skill://pdf-processing')).toEqual([
      { uri: 'skill://pdf-processing/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown' },
      { uri: 'skill://pdf-processing/logo.png', name: 'logo.png', mimeType: 'image/png' },
      { uri: 'skill://pdf-processing/templates', name: 'templates', mimeType: 'inode/directory' },
    ]);
    expect(await dir('skill://pdf-processing/templates')).toEqual([
      { uri: 'skill://pdf-processing/templates/invoice.md', name: 'invoice.md', mimeType: 'text/markdown' },
      { uri: 'skill://pdf-processing/templates/regional', name: 'regional', mimeType: 'inode/directory' },
    ]);
    expect(await dir('skill://acme')).toEqual([{ uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' }]);
    expect(await dir('skill://acme/billing/refunds')).toEqual([
      { uri: 'skill://acme/billing/refunds/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown' },
      { uri: 'skill://acme/billing/refunds/examples', name: 'examples', mimeType: 'inode/directory' },
      { uri: 'skill://acme/billing/refunds/partial-refunds', name: 'partial-refunds', mimeType: 'inode/directory' },
    ]);
    const notADirectory = await failure(client.request('resources/directory/read', { uri: 'skill://pdf-processing/SKILL.md' }));
    expect({ code: notADirectory.code, message: notADirectory.message }).toEqual({ code: -32602, message: 'skill://pdf-processing/SKILL.md is not a directory resource' });
    const unknown = await failure(client.request('resources/directory/read', { uri: 'skill://pdf-processing/nothing' }));
    expect({ code: unknown.code, message: unknown.message }).toEqual({ code: -32602, message: 'No directory is served at skill://pdf-processing/nothing' });
  });

  it('pages a large directory and refuses a cursor it did not issue', async () => {
    const files: Record<string, string> = { 'big/SKILL.md': '---\nname: big\ndescription: Many files\n---\n' };
    for (let i = 0; i < 150; i++) files[`big/data/file-${String(i).padStart(3, '0')}.txt`] = `${i}\n`;
    const server = newServer().skills(skillFolder(files));
    const client = await clientOf(server, version);
    const first = await client.request('resources/directory/read', { uri: 'skill://big/data' });
    expect(first.resources).toHaveLength(100);
    expect(typeof first.nextCursor).toBe('string');
    const second = await client.request('resources/directory/read', { uri: 'skill://big/data', cursor: first.nextCursor as string });
    expect((second.resources as Array<{ name: string }>).map((r) => r.name)).toEqual(Array.from({ length: 50 }, (_, i) => `file-${String(i + 100).padStart(3, '0')}.txt`));
    expect(second).not.toHaveProperty('nextCursor');
    const wrongDirectory = await failure(client.request('resources/directory/read', { uri: 'skill://big', cursor: first.nextCursor as string }));
    expect(wrongDirectory.code).toBe(-32602);
    expect((await failure(client.request('resources/directory/read', { uri: 'skill://big/data', cursor: 'bm9wZQ' }))).message).toMatch(/^Invalid cursor for resources\/directory\/read/);
  });

  it('pages skills/list with the server page size', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`skill-${i}/SKILL.md`] = `---\nname: skill-${i}\ndescription: Number ${i}\n---\n`;
    const server = new McpServer({ name: 'paged', version: '1', pageSize: 2 }).skills(skillFolder(files));
    servers.push(server);
    const client = await clientOf(server, version);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request('skills/list', cursor === undefined ? {} : { cursor });
      names.push(...(page.skills as Array<{ frontmatter: { name: string } }>).map((s) => s.frontmatter.name));
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    expect(names).toEqual(['skill-0', 'skill-1', 'skill-2', 'skill-3', 'skill-4']);
    expect((await failure(client.request('skills/list', { cursor: 'garbage!' }))).code).toBe(-32602);
  });
});

describe('a server without skills', () => {
  it.each(VERSIONS)('declares no extension and knows no skills methods (%s)', async (version) => {
    const client = await clientOf(newServer(), version);
    expect(client.serverCapabilities.extensions).toBeUndefined();
    for (const method of ['skills/list', 'skills/get', 'resources/directory/read']) {
      expect((await failure(client.request(method, { uri: 'skill://a/SKILL.md' }))).code).toBe(-32601);
    }
  });
});

describe('bad skill folders are startup errors that name the file', () => {
  const skill = (name: string, body = `---\nname: ${name}\ndescription: Does things\n---\n`) => body;
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['no frontmatter', { 'a/SKILL.md': '# Just markdown\n' }, /a\/SKILL\.md must begin with YAML frontmatter between two "---" lines/],
    ['malformed YAML', { 'a/SKILL.md': '---\nname: a\ndescription: [unclosed\n---\n' }, /a\/SKILL\.md has malformed YAML frontmatter/],
    ['a list as frontmatter', { 'a/SKILL.md': '---\n- a\n---\n' }, /a\/SKILL\.md must have a YAML mapping as its frontmatter/],
    ['a duplicate key', { 'a/SKILL.md': '---\nname: a\nname: a\ndescription: x\n---\n' }, /a\/SKILL\.md has malformed YAML frontmatter/],
    ['no name', { 'a/SKILL.md': '---\ndescription: x\n---\n' }, /a\/SKILL\.md needs a "name"/],
    ['a name that is not the directory', { 'a/SKILL.md': skill('b') }, /a\/SKILL\.md has "name" "b", but a skill's name must be the name of its directory, "a"/],
    ['a name breaking the rules', { 'Bad--Name/SKILL.md': skill('Bad--Name') }, /Bad--Name\/SKILL\.md: the last segment of the skill path is the skill's name and "name" "Bad--Name" breaks the naming rules/],
    ['no description', { 'a/SKILL.md': '---\nname: a\n---\n' }, /a\/SKILL\.md needs a non-empty "description"/],
    ['a description over 1024 characters', { 'a/SKILL.md': `---\nname: a\ndescription: ${'x'.repeat(1025)}\n---\n` }, /has a "description" of 1025 characters; at most 1024 are allowed/],
    ['metadata that is not strings', { 'a/SKILL.md': '---\nname: a\ndescription: x\nmetadata:\n  version: 1\n---\n' }, /has a "metadata" that is not a mapping of strings to strings/],
    ['a reserved metadata key', { 'a/SKILL.md': '---\nname: a\ndescription: x\nmetadata:\n  "io.modelcontextprotocol/x": "y"\n---\n' }, /keys under "io\.modelcontextprotocol\/" are reserved/],
    ['a SKILL.md at the root', { 'SKILL.md': skill('root') }, /SKILL\.md: a skill needs a directory of its own/],
  ];
  it.each(cases)('%s', (_what, files, message) => {
    const folder = skillFolder(files);
    const error = startupError(() => newServer().skills(folder));
    expect(error.code).toBe('INVALID_SKILL');
    expect(error.message).toMatch(message);
    expect(error.message).toContain(folder);
  });

  it('a skill over 512 files', () => {
    const files: Record<string, string> = { 'many/SKILL.md': skill('many') };
    for (let i = 0; i < 512; i++) files[`many/f${i}.txt`] = 'x';
    const folder = skillFolder(files);
    expect(startupError(() => newServer().skills(folder)).message).toBe(`${path.join(fs.realpathSync(folder), 'many', 'SKILL.md')}: the skill has 513 files; a skill may have at most 512`);
  });

  it('a skill over 16 MiB', () => {
    const folder = skillFolder({ 'huge/SKILL.md': skill('huge'), 'huge/blob.bin': Buffer.alloc(16 * 1024 * 1024) });
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/huge\/SKILL\.md: the skill's files hold 16777\d+ bytes; a skill may hold at most 16777216 \(16 MiB\)/);
  });

  it('a link that leads out of the folder; links inside the skill are followed', () => {
    const outside = skillFolder({ 'secret.txt': 'secret' });
    const folder = skillFolder({ 'a/SKILL.md': skill('a'), 'a/docs/notes.md': 'shared\n' });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(folder, 'a', 'secret.txt'));
    expect(startupError(() => newServer().skills(folder)).message).toMatch(/a\/secret\.txt: links to .*secret\.txt, outside the skills folder/);
    fs.unlinkSync(path.join(folder, 'a', 'secret.txt'));
    fs.symlinkSync(path.join(folder, 'a', 'docs'), path.join(folder, 'a', 'shared'));
    const server = newServer().skills(folder);
    expect(server).toBeInstanceOf(McpServer);
  });

  it('a folder that does not exist, a bad prefix, and a path another source serves', () => {
    expect(startupError(() => newServer().skills('/no/such/folder')).message).toMatch(/^server\.skills\("\/no\/such\/folder"\): the skills folder cannot be read/);
    const folder = skillFolder({ 'a/SKILL.md': skill('a') });
    expect(startupError(() => newServer().skills(folder, { prefix: '../up' })).message).toMatch(/needs one or more non-empty "\/"-separated segments, none "\." or "\.\."/);
    const server = newServer().skills(folder);
    const again = startupError(() => server.skills(folder));
    expect(again).toMatchObject({ code: 'DUPLICATE_NAME', message: expect.stringMatching(/a skill at "a" is already served/) });
  });

  it('a prefix puts the folder below it', async () => {
    const server = newServer().skills(skillFolder({ 'a/SKILL.md': skill('a') }), { prefix: 'team/tools' });
    const client = await clientOf(server, '2026-07-28');
    expect(((await client.request('skills/list')).skills as Array<{ uri: string }>).map((s) => s.uri)).toEqual(['skill://team/tools/a/SKILL.md']);
  });
});

describe('@Skill: skills whose files a provider method makes', () => {
  beforeEach(() => metadataStore.clear());

  function declare() {
    const calls = { checklist: 0, report: 0 };
    @injectable()
    class TeamSkills {
      @Skill({ path: 'release-checklist', description: 'Check a release', frontmatter: { license: 'MIT', metadata: { owner: 'platform' } } })
      checklist(): SkillContent {
        calls.checklist++;
        return { instructions: '# Release\n\nSee [steps.md](steps.md).\n', files: { 'steps.md': '1. Tag\n', 'bin/tool.bin': new Uint8Array([0, 255]) } };
      }

      @Skill({ path: 'reports/daily', description: 'Build the daily report', resources: 'dynamic' })
      report(): string {
        calls.report++;
        return `Report number ${calls.report}\n`;
      }

      @Skill({ path: 'internal/payroll', description: 'Run payroll' })
      @Scopes('payroll')
      payroll(): string {
        return 'Payroll steps\n';
      }
    }
    return { TeamSkills, calls };
  }

  it.each(VERSIONS)('lists a static skill with its manifest (the method runs once) and a dynamic one as "dynamic" (%s)', async (version) => {
    const { TeamSkills, calls } = declare();
    const server = new McpServer({ name: 'team', version: '1', providers: [TeamSkills] });
    servers.push(server);
    const client = await clientOf(server, version, { subject: 'pat', scopes: ['payroll'], claims: {} });
    const { skills } = (await client.request('skills/list')) as { skills: Array<Record<string, any>> };
    expect(skills.map((s) => s.uri)).toEqual(['skill://release-checklist/SKILL.md', 'skill://reports/daily/SKILL.md', 'skill://internal/payroll/SKILL.md']);
    expect(skills[0].frontmatter).toEqual({ name: 'release-checklist', description: 'Check a release', license: 'MIT', metadata: { owner: 'platform' } });
    expect(skills[1]).toEqual({ uri: 'skill://reports/daily/SKILL.md', frontmatter: { name: 'daily', description: 'Build the daily report' }, resources: 'dynamic' });
    for (const entry of skills[0].resources as Array<{ uri: string; digest: string; size: number }>) {
      const bytes = bytesOf(((await client.request('resources/read', { uri: entry.uri })) as { contents: Array<Record<string, unknown>> }).contents[0]);
      expect({ size: bytes.byteLength, digest: sha256(bytes) }).toEqual({ size: entry.size, digest: entry.digest });
    }
    const skillMd = ((await client.request('resources/read', { uri: 'skill://release-checklist/SKILL.md' })) as { contents: Array<{ text: string }> }).contents[0].text;
    expect(skillMd).toBe('---\nname: release-checklist\ndescription: Check a release\nlicense: MIT\nmetadata:\n  owner: platform\n---\n\n# Release\n\nSee [steps.md](steps.md).\n');
    await client.request('skills/get', { uri: 'skill://release-checklist/SKILL.md' });
    expect(calls.checklist).toBe(1);
    expect(calls.report).toBe(0);
    const first = ((await client.request('resources/read', { uri: 'skill://reports/daily/SKILL.md' })) as { contents: Array<{ text: string }> }).contents[0].text;
    const second = ((await client.request('resources/read', { uri: 'skill://reports/daily/SKILL.md' })) as { contents: Array<{ text: string }> }).contents[0].text;
    expect([first.endsWith('Report number 1\n'), second.endsWith('Report number 2\n')]).toEqual([true, true]);
    expect((await client.request('resources/directory/read', { uri: 'skill://release-checklist/bin' })).resources).toEqual([
      { uri: 'skill://release-checklist/bin/tool.bin', name: 'tool.bin', mimeType: 'application/octet-stream' },
    ]);
  });

  it('applies access decorators: a caller without the scope neither sees nor gets nor reads the skill', async () => {
    const { TeamSkills } = declare();
    const server = new McpServer({ name: 'team', version: '1', providers: [TeamSkills] });
    servers.push(server);
    const client = await clientOf(server, '2026-07-28', { subject: 'sam', scopes: [], claims: {} });
    const listed = await client.request('skills/list');
    expect((listed.skills as Array<{ uri: string }>).map((s) => s.uri)).toEqual(['skill://release-checklist/SKILL.md', 'skill://reports/daily/SKILL.md']);
    expect(listed.cacheScope).toBe('private');
    expect((await client.listResources()).map((r) => r.uri)).not.toContain('skill://internal/payroll/SKILL.md');
    expect((await failure(client.request('skills/get', { uri: 'skill://internal/payroll/SKILL.md' }))).code).toBe(-32003);
    expect((await failure(client.request('resources/read', { uri: 'skill://internal/payroll/SKILL.md' }))).code).toBe(-32003);
    expect((await failure(client.request('resources/directory/read', { uri: 'skill://internal/payroll' }))).code).toBe(-32602);
  });

  it('refuses bad declarations at startup, naming the method', () => {
    const cases: Array<[() => unknown, RegExp]> = [
      [
        () => {
          class A {
            @Skill({ path: 'Bad Name', description: 'x' })
            m(): string {
              return '';
            }
          }
          return A;
        },
        /^A\.m: @Skill: the last segment of the skill path is the skill's name and "name" "Bad Name" breaks the naming rules/,
      ],
      [
        () => {
          class B {
            @Skill({ path: 'b', description: '' })
            m(): string {
              return '';
            }
          }
          return B;
        },
        /^B\.m: @Skill needs a non-empty "description"/,
      ],
      [
        () => {
          class C {
            @Skill({ path: 'c', description: 'x', frontmatter: { name: 'other' } })
            m(): string {
              return '';
            }
          }
          return C;
        },
        /^C\.m: @Skill frontmatter must not set "name"; the name is the last segment of path/,
      ],
    ];
    for (const [declareClass, message] of cases) {
      metadataStore.clear();
      const provider = declareClass() as new () => unknown;
      const error = startupError(() => new McpServer({ name: 'bad', version: '1', providers: [provider] }));
      expect(error.message).toMatch(message);
    }
  });

  it('a method that returns a path leaving the skill fails the request, and is asked again next time', async () => {
    let attempt = 0;
    class Leaky {
      @Skill({ path: 'leaky', description: 'Leaks' })
      m(): SkillContent {
        attempt++;
        return attempt === 1 ? { instructions: 'x', files: { '../outside.md': 'no' } } : { instructions: 'fine' };
      }
    }
    const errors: string[] = [];
    const server = new McpServer({ name: 'leaky', version: '1', providers: [Leaky], onError: (what, error) => void errors.push(`${what}: ${(error as Error).message}`) });
    servers.push(server);
    const client = await clientOf(server, '2026-07-28');
    expect((await failure(client.request('skills/get', { uri: 'skill://leaky/SKILL.md' }))).code).toBe(-32603);
    expect(errors.join('\n')).toMatch(/Leaky\.m: the file path "\.\.\/outside\.md" must be a relative "\/"-separated path inside the skill/);
    const got = await client.request('skills/get', { uri: 'skill://leaky/SKILL.md' });
    expect((got.skill as { resources: unknown[] }).resources).toHaveLength(1);
  });
});

describe('a watched skills folder', () => {
  it('serves edits as they happen: list_changed, resources/updated to subscribers, new digests; a broken edit keeps what was served', async () => {
    const folder = sampleFolder();
    const errors: string[] = [];
    const server = new McpServer({ name: 'watched', version: '1', onError: (what) => void errors.push(what) }).skills(folder, { watch: true });
    servers.push(server);
    const client = await clientOf(server, '2025-11-25');
    await client.request('resources/subscribe', { uri: 'skill://git-workflow/references/commits.md' });
    const before = (await client.request('skills/get', { uri: 'skill://git-workflow/SKILL.md' })).skill as { resources: Array<{ digest: string }> };

    const updated = client.nextNotification('notifications/resources/updated', { timeoutMs: 5000 });
    const listChanged = client.nextNotification('notifications/resources/list_changed', { timeoutMs: 5000 });
    fs.writeFileSync(path.join(folder, 'git-workflow', 'references', 'commits.md'), '# Commits, revised\n');
    expect(await updated).toEqual({ uri: 'skill://git-workflow/references/commits.md' });
    await listChanged;
    const after = (await client.request('skills/get', { uri: 'skill://git-workflow/SKILL.md' })).skill as { resources: Array<{ digest: string; size: number }> };
    expect(after.resources[1]).toEqual({ uri: 'skill://git-workflow/references/commits.md', digest: sha256(Buffer.from('# Commits, revised\n')), size: 19 });
    expect(after.resources[0]).toEqual(before.resources[0]);

    const added = client.nextNotification('notifications/resources/list_changed', { timeoutMs: 5000 });
    fs.mkdirSync(path.join(folder, 'new-skill'));
    fs.writeFileSync(path.join(folder, 'new-skill', 'SKILL.md'), '---\nname: new-skill\ndescription: Fresh\n---\n');
    await added;
    await expect(client.request('skills/get', { uri: 'skill://new-skill/SKILL.md' })).resolves.toBeDefined();

    fs.writeFileSync(path.join(folder, 'new-skill', 'SKILL.md'), '---\nname: wrong\ndescription: Fresh\n---\n');
    for (let i = 0; i < 50 && errors.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors[0]).toMatch(/reloading the skills failed; the skills read before are still served/);
    await expect(client.request('skills/get', { uri: 'skill://new-skill/SKILL.md' })).resolves.toBeDefined();
  });

  it('at 2026-07-28, a listen stream hears of a changed skill file, and only of skills its caller may read', async () => {
    metadataStore.clear();
    class Guarded {
      @Skill({ path: 'internal/payroll', description: 'Run payroll' })
      @Scopes('payroll')
      payroll(): string {
        return 'Payroll steps\n';
      }
    }
    const folder = sampleFolder();
    const server = new McpServer({ name: 'watched', version: '1', providers: [Guarded] }).skills(folder, { watch: true });
    servers.push(server);
    const client = await clientOf(server, '2026-07-28', { subject: 'sam', scopes: [], claims: {} });
    const commits = 'skill://git-workflow/references/commits.md';
    const subscription = await client.listen({ resourceSubscriptions: [commits, 'skill://internal/payroll/SKILL.md'] });
    expect(subscription.honoured.resourceSubscriptions).toEqual([commits]);
    const updated = client.nextNotification('notifications/resources/updated', { timeoutMs: 5000 });
    fs.writeFileSync(path.join(folder, 'git-workflow', 'references', 'commits.md'), '# Commits, once more\n');
    expect(await updated).toMatchObject({ uri: commits });
    await subscription.close();
  });
});
