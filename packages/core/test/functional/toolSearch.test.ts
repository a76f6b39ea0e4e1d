import 'reflect-metadata';
import { IsString } from 'class-validator';
import { DefinitionError, McpServer, Roles, Tool } from '@typemcp/core';
import type { Constructor, Middleware } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

class CityInput {
  @IsString() city!: string;
}

const SUBJECTS = ['weather', 'invoice', 'calendar', 'ticket', 'deploy', 'search', 'email', 'contact', 'report', 'backup'];
const VERBS = ['get', 'list', 'create', 'delete', 'update', 'archive', 'export', 'import', 'sync', 'audit'];

/** `count` tools made with the decorator: <verb>_<subject>_<n>, each with a plain description. */
function manyTools(count: number): Constructor {
  class Many {}
  const prototype = Many.prototype as Record<string, unknown>;
  for (let i = 0; i < count; i++) {
    const verb = VERBS[i % VERBS.length];
    const subject = SUBJECTS[Math.floor(i / VERBS.length) % SUBJECTS.length];
    const name = `${verb}_${subject}_${i}`;
    prototype[name] = function (input: CityInput): string {
      return `${name} for ${input.city}`;
    };
    Tool({ description: `${verb} the ${subject} records, batch ${i}`, input: CityInput })(prototype, name, Object.getOwnPropertyDescriptor(prototype, name)!);
  }
  return Many;
}

class Special {
  @Tool({ description: 'Tomorrow forecast of the weather for a city' })
  forecast(input: CityInput): string {
    return `sunny in ${input.city}`;
  }

  @Tool({ description: 'Wipes the weather station (admins only)' })
  @Roles('admin')
  wipe_weather_station(): string {
    return 'wiped';
  }

  @Tool({ description: 'Always visible' })
  help(): string {
    return 'help';
  }
}

const parse = (result: { content: Array<{ text?: string }> }) => JSON.parse(result.content[0].text!) as { tools: Array<{ name: string; inputSchema: unknown }> };
const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

describe('tool search (toolSearch option)', () => {
  it('lists the search and call tools and the pinned ones; a search over 2,000 tools answers from the caller visible tools only', async () => {
    const server = new McpServer({ name: 's', version: '1', providers: [manyTools(2000), Special], toolSearch: { pinned: ['help'] } });
    const client = await createTestClient(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['search_tools', 'call_tool', 'help']);
    const found = parse(await client.callTool('search_tools', { query: 'weather forecast city', limit: 5 }));
    expect(found.tools[0].name).toBe('forecast');
    expect(found.tools.length).toBeLessThanOrEqual(5);
    expect(found.tools[0].inputSchema).toMatchObject({ properties: { city: { type: 'string' } } });
    // The admin-only tool matches the words but the anonymous caller may not use it.
    const wipe = parse(await client.callTool('search_tools', { query: 'wipe weather station' }));
    expect(wipe.tools.map((t) => t.name)).not.toContain('wipe_weather_station');
    expect(parse(await client.callTool('search_tools', { query: 'archive invoice' })).tools[0].name).toMatch(/^archive_invoice_/);
    await client.close();

    const admin = await createTestClient(server, { principal: { subject: 'root', scopes: [], roles: ['admin'], claims: {} } });
    expect(parse(await admin.callTool('search_tools', { query: 'wipe weather station' })).tools[0].name).toBe('wipe_weather_station');
    expect(text(await admin.callTool('call_tool', { name: 'wipe_weather_station' }))).toBe('wiped');
    await admin.close();
  });

  it('calls through the whole tools/call path: validation, access rules, middleware that sees the tool', async () => {
    const seen: string[] = [];
    const trace: Middleware = async (call, next) => {
      seen.push(String((call.params as { name?: string }).name));
      return next();
    };
    const server = new McpServer({ name: 's', version: '1', providers: [Special], toolSearch: true }).use(trace);
    const client = await createTestClient(server);
    expect(text(await client.callTool('call_tool', { name: 'forecast', arguments: { city: 'Lima' } }))).toBe('sunny in Lima');
    expect(seen).toEqual(['call_tool', 'forecast']);
    const invalid = await client.callTool('call_tool', { name: 'forecast', arguments: { city: 7 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('Invalid arguments for tool "forecast"');
    // A tool the caller may not use is not called through it.
    const refused = await client.callTool('call_tool', { name: 'wipe_weather_station' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/Access denied/);
    const unknown = await client.callTool('call_tool', { name: 'no_such_tool' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('Unknown tool');
    expect((await client.callTool('call_tool', { name: 'call_tool' })).isError).toBe(true);
    expect((await client.callTool('search_tools', { query: '' })).isError).toBe(true);
    await client.close();
  });

  it('re-indexes when the tools change, and the clients hear list_changed', async () => {
    const server = new McpServer({ name: 's', version: '1', providers: [Special], toolSearch: true });
    const client = await createTestClient(server);
    expect(parse(await client.callTool('search_tools', { query: 'forecast' })).tools.map((t) => t.name)).toEqual(['forecast']);
    let changed = 0;
    client.onNotification('notifications/tools/list_changed', () => void changed++);
    server.tools.disable('forecast');
    server.register(manyTools(3));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changed).toBeGreaterThan(0);
    expect(parse(await client.callTool('search_tools', { query: 'forecast' })).tools).toEqual([]);
    expect(parse(await client.callTool('search_tools', { query: 'weather records' })).tools.map((t) => t.name)).toContain('get_weather_0');
    await client.close();
  });

  it('refuses names it cannot have', () => {
    class Clash {
      @Tool({ description: 'clash' })
      search_tools(): string {
        return 'x';
      }
    }
    expect(() => new McpServer({ name: 's', version: '1', providers: [Clash], toolSearch: true })).toThrow(DefinitionError);
    const server = new McpServer({ name: 's', version: '1', toolSearch: { searchTool: 'find', callTool: 'run' } });
    class Later {
      @Tool({ description: 'clash' })
      run(): string {
        return 'x';
      }
    }
    expect(() => server.register(Later)).toThrow(/tool search/);
    expect(() => new McpServer({ name: 's', version: '1', toolSearch: { searchTool: 'same', callTool: 'same' } })).toThrow(/must differ/);
    expect(() => new McpServer({ name: 's', version: '1', toolSearch: { maxResults: 0 } })).toThrow(/maxResults/);
  });
});

describe('tool search: what the caller may not see weighs nothing', () => {
  it('ranks by word rarity among the caller visible tools only', async () => {
    class Visible {
      @Tool({ description: 'Builds it' })
      report_builder(): string {
        return 'p';
      }

      @Tool({ description: 'Mentions zeta' })
      q_tool(): string {
        return 'q';
      }
    }
    @Roles('admin')
    class AdminReports {}
    const prototype = AdminReports.prototype as Record<string, unknown>;
    for (let i = 0; i < 30; i++) {
      const name = `report_admin_${i}`;
      prototype[name] = () => 'admin';
      Tool({ description: 'An admin report' })(prototype, name, Object.getOwnPropertyDescriptor(prototype, name)!);
    }
    const server = new McpServer({ name: 's', version: '1', providers: [Visible, AdminReports], toolSearch: true });
    const client = await createTestClient(server);
    // Were the 30 hidden "report" tools counted, "report" would weigh less than "zeta" and q_tool would lead.
    expect(parse(await client.callTool('search_tools', { query: 'report zeta' })).tools.map((t) => t.name)).toEqual(['report_builder', 'q_tool']);
    await client.close();
  });
});
