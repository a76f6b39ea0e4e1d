import 'reflect-metadata';
import { McpServer, Scopes, Tool } from '@typemcp/core';
import type { PluginHost, RemoteTool } from '@typemcp/core';

/** What an authorization server offers its clients: the scopes the server's targets need, as they come and go. */
describe('PluginHost.declaredScopes', () => {
  class Notes {
    @Tool({ description: 'Reads' })
    @Scopes('notes:read')
    read(): string {
      return 'read';
    }

    @Tool({ description: 'Writes' })
    @Scopes('notes:read', 'notes:write')
    write(): string {
      return 'written';
    }

    @Tool({ description: 'Open to any caller' })
    ping(): string {
      return 'pong';
    }
  }

  class Admin {
    @Tool({ description: 'Purges' })
    @Scopes('admin')
    purge(): string {
      return 'purged';
    }
  }

  const withHost = (server: McpServer): PluginHost => {
    let captured: PluginHost | undefined;
    server.plugin({ name: 'capture', register: (host) => void (captured = host) });
    return captured!;
  };

  const remoteTool = (name: string, scopes: string[]): RemoteTool => ({
    listing: { name, description: name, inputSchema: { type: 'object' } },
    access: { scopes },
    call: async () => ({ content: [] }),
  });

  it('lists each scope of the decorated targets once, in the order first declared, registered before or after the plugin', () => {
    const server = new McpServer({ name: 's', version: '1', providers: [Notes] });
    const host = withHost(server);
    expect(host.declaredScopes()).toEqual(['notes:read', 'notes:write']);
    server.register(Admin);
    expect(host.declaredScopes()).toEqual(['notes:read', 'notes:write', 'admin']);
  });

  it('follows mounted servers and remote items: a scope goes when the last target needing it goes', () => {
    const server = new McpServer({ name: 'gateway', version: '1' });
    const host = withHost(server);
    expect(host.declaredScopes()).toEqual([]);
    const notes = server.mount(new McpServer({ name: 'notes', version: '1', providers: [Notes] }), { namespace: 'notes' });
    expect(host.declaredScopes()).toEqual(['notes:read', 'notes:write']);
    notes.unmount();
    expect(host.declaredScopes()).toEqual([]);
    server.mount(new McpServer({ name: 'notes', version: '1', providers: [Notes] }), { namespace: 'notes' });
    const remote = server.remote({ tools: [remoteTool('kb_search', ['kb:read']), remoteTool('kb_admin', ['kb:read', 'kb:admin'])] });
    expect(host.declaredScopes()).toEqual(['notes:read', 'notes:write', 'kb:read', 'kb:admin']);
    remote.update({ tools: [remoteTool('kb_search', ['kb:read'])] });
    expect(host.declaredScopes()).toEqual(['notes:read', 'notes:write', 'kb:read']);
    remote.update({ tools: [] });
    expect(host.declaredScopes()).toEqual(['notes:read', 'notes:write']);
  });
});
