/**
 * A gateway that transforms a proxied tool to hide its tenant argument: when the upstream
 * redeploys the tool (list_changed), the original stays hidden and the tenant never comes from
 * the client. A real stdio upstream, a real client.
 */
import 'reflect-metadata';
import path from 'node:path';
import type { Context } from '@typemcp/core';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import { runTsPath } from '../../../test-support/spawnServer';
import { waitFor } from './waitFor';

const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

test("an upstream's redeploy does not bring back the original of a transformed tool, or its hidden argument", async () => {
  const proxy = new ProxyServer({
    upstream: { command: process.execPath, args: ['-r', runTsPath, path.join(__dirname, 'fixtures/tenantUpstream.ts')], stderr: 'ignore' },
  });
  await proxy.start();
  proxy.transformTool('kb_search', { name: 'find', arguments: { tenant: { hide: true, default: (ctx: Context) => `tenant-of-${ctx.principal?.subject}` } } });
  const client = await createTestClient(proxy, { principal: { subject: 'ada', scopes: [], claims: {} } });
  try {
    const check = async (version: string) => {
      expect((await client.listTools()).map((tool) => tool.name).sort()).toEqual(['find', 'redeploy']);
      await expect(client.callTool('kb_search', { q: 'x', tenant: 'victim' })).rejects.toThrow(/Unknown tool/);
      expect((await client.callTool('find', { q: 'x', tenant: 'victim' })).isError).toBe(true);
      expect(text(await client.callTool('find', { q: 'x' }))).toBe(`${version} tenant-of-ada: x`);
    };
    await check('v1');
    for (const version of ['v2', 'v3']) {
      expect(text(await client.callTool('redeploy'))).toBe(version);
      // The proxy mirrors the upstream's new listing once it hears list_changed.
      await waitFor(async () => text(await client.callTool('find', { q: 'x' })).startsWith(version));
      await check(version);
    }
  } finally {
    await client.close();
    await proxy.close();
  }
});
