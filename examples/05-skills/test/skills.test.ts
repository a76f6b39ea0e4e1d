/**
 * The skills example against the official SDK v2 client and its SkillsClient, which checks
 * every file it reads against the server's entry (size, digest, frontmatter): over a stdio
 * child process and over HTTP on 127.0.0.1, in both protocol eras. Each file is also hashed
 * here, independently of the SDK.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { McpServer } from '@typemcp/core';
import { RecordingTransport } from '../../../test-support/recordingTransport';
import { stdioServerParams } from '../../../test-support/spawnServer';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { OnCallRota } from '../src/onCallRota';
import { createSkillsServer, SKILLS_FOLDER } from '../src/server';

const FOLDER_SKILLS = ['acme/billing/refunds', 'acme/billing/refunds/partial-refunds', 'git-workflow', 'pdf-processing'];
const ALL_SKILLS = [...FOLDER_SKILLS, 'release-checklist', 'team/on-call'];

/** Every file of the folder under a skill's directory, by its path there: what a manifest must list. */
function filesOnDisk(skillPath: string): Map<string, Buffer> {
  const root = path.join(SKILLS_FOLDER, ...skillPath.split('/'));
  const files = new Map<string, Buffer>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const relative = prefix + entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), `${relative}/`);
      else files.set(relative, fs.readFileSync(path.join(dir, entry.name)));
    }
  };
  walk(root, '');
  return files;
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Lists the skills, reads and verifies every file of each (SkillsClient), and hashes each again here. */
async function checkEverySkill(client: Client): Promise<void> {
  const skills = new SkillsClient(client);
  expect(skills.supported).toBe(true);
  expect(skills.directoryRead).toBe(true);
  const listing = await skills.list();
  expect(listing.invalid).toEqual([]);
  expect(listing.skills.map((s) => s.uri)).toEqual(ALL_SKILLS.map((p) => `skill://${p}/SKILL.md`));

  let verified = 0;
  for (const skill of listing.skills) {
    const skillPath = skill.uri.slice('skill://'.length, -'/SKILL.md'.length);
    if (skill.resources === 'dynamic') {
      const file = await skills.read(skill);
      expect(file.verified).toBe(false);
      expect(file.frontmatter).toEqual(skill.frontmatter);
      expect(file.body).toContain(`on-call engineer is ${new OnCallRota().thisWeek().engineer}`);
      continue;
    }
    for (const entry of skill.resources) {
      const file = await skills.read(skill, entry.uri);
      expect(file.verified).toBe(true);
      expect({ size: file.bytes.byteLength, digest: sha256(file.bytes) }).toEqual({ size: entry.size, digest: entry.digest });
      verified++;
    }
    if (FOLDER_SKILLS.includes(skillPath)) {
      // The manifest is the folder, file for file, byte for byte.
      const onDisk = filesOnDisk(skillPath);
      expect(skill.resources.map((r) => r.uri).sort()).toEqual([...onDisk.keys()].map((file) => `${skill.uri.slice(0, -'SKILL.md'.length)}${file}`).sort());
      for (const entry of skill.resources) {
        const bytes = onDisk.get(entry.uri.slice(skill.uri.length - 'SKILL.md'.length))!;
        expect(entry).toEqual({ uri: entry.uri, size: bytes.byteLength, digest: sha256(bytes) });
      }
    }
  }
  expect(verified).toBe(14);

  const refunds = listing.skills.find((s) => s.frontmatter.name === 'refunds') as Skill;
  expect((await skills.get(refunds.uri)).skill).toEqual(refunds);
  const templates = await skills.readDirectory('skill://pdf-processing/templates');
  expect(templates.resources.map((r) => [r.name, r.mimeType])).toEqual([
    ['invoice.md', 'text/markdown'],
    ['purchase-order.md', 'text/markdown'],
    ['regional', 'inode/directory'],
  ]);
  await expect(skills.get('skill://acme/billing/chargebacks/SKILL.md')).rejects.toMatchObject({ code: -32602 });
}

describe('the skills example', () => {
  let server: McpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each([
    ['2026-07-28', { mode: { pin: '2026-07-28' } }],
    ['2025-11-25', { mode: 'legacy' }],
  ] as const)('serves every skill file as its entry describes, over Streamable HTTP (%s)', async (version, versionNegotiation) => {
    server = createSkillsServer();
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    const recorder = new RecordingTransport(new StreamableHTTPClientTransport(new URL(url)) as never);
    const client = new Client({ name: 'skills-host', version: '1.0.0' }, { capabilities: {}, versionNegotiation: versionNegotiation as never });
    await client.connect(recorder as never);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      await checkEverySkill(client);
    } finally {
      await client.close();
    }
    expectValidServerMessages(version, recorder.received);
  });

  it.each([
    ['2026-07-28', { mode: { pin: '2026-07-28' } }],
    ['2025-11-25', { mode: 'legacy' }],
  ] as const)('serves every skill file as its entry describes, over stdio (%s)', async (version, versionNegotiation) => {
    const transport = new StdioClientTransport(stdioServerParams(path.join(__dirname, '..', 'src', 'main.ts'), ['--stdio']));
    const client = new Client({ name: 'skills-host', version: '1.0.0' }, { capabilities: {}, versionNegotiation: versionNegotiation as never });
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      await checkEverySkill(client);
    } finally {
      await client.close();
    }
  });
});
