import 'reflect-metadata';
import { IsString } from 'class-validator';
import { AuthenticationService, Completion, Context, DefinitionError, McpServer, Prompt, Resource, Scopes, Skill, Tool } from '@typemcp/core';
import type { SkillContent } from '@typemcp/core';
import type { Middleware } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { injectable } from 'tsyringe';
import { TasksClient } from './tasksClient';

class CityInput {
  @IsString() city!: string;
}

class Topic {
  @IsString() topic!: string;
}

@injectable()
class Greeter {
  greet(name: string): string {
    return `hello ${name}`;
  }
}

class WeatherTools {
  @Tool({ description: 'The forecast for a city' })
  forecast(input: CityInput): string {
    return `sunny in ${input.city}`;
  }

  @Tool({ description: 'Only for admins' })
  @Scopes('weather:admin')
  reset(): string {
    return 'reset';
  }

  @Resource({ uri: 'weather://stations', mimeType: 'application/json' })
  stations() {
    return { stations: ['north', 'south'] };
  }

  @Resource({ uri: 'weather://stations/{station}/today', mimeType: 'text/plain' })
  today(args: { station: string }) {
    return `today at ${args.station}`;
  }

  @Resource({ uri: 'urn:weather:{code}', mimeType: 'text/plain' })
  byCode(args: { code: string }) {
    return `code ${args.code}`;
  }

  @Prompt({ description: 'Talk about the weather' })
  chat(args: Topic): string {
    return `Weather talk: ${args.topic}`;
  }

  @Completion({ prompt: 'chat', argument: 'topic' })
  topics(value: string): string[] {
    return ['rain', 'snow', 'sun'].filter((t) => t.startsWith(value));
  }

  @Completion({ resource: 'weather://stations/{station}/today', argument: 'station' })
  stationNames(value: string): string[] {
    return ['north', 'south'].filter((s) => s.startsWith(value));
  }
}

@injectable()
class GreetTools {
  constructor(private readonly greeter: Greeter) {}

  @Tool({ description: 'Greets, with a provider of the mounted server' })
  greet(input: Topic, ctx: Context): string {
    return `${this.greeter.greet(input.topic)} (${ctx.method})`;
  }
}

class OwnTools {
  @Tool({ description: 'The parent own tool' })
  own(): string {
    return 'own';
  }
}

const texts = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((c) => c.text).join('');

describe('server.mount', () => {
  it('shows every kind of item under the namespace and serves it from the mounted server', async () => {
    const weather = new McpServer({ name: 'weather', version: '1', providers: [WeatherTools] });
    const parent = new McpServer({ name: 'parent', version: '1', providers: [OwnTools] });
    parent.mount(weather, { namespace: 'wx' });
    const client = await createTestClient(parent);
    expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['own', 'wx_forecast']);
    expect(texts(await client.callTool('wx_forecast', { city: 'Oslo' }))).toBe('sunny in Oslo');
    // The mounted server validates what it receives, as its own DTO says.
    const invalid = await client.callTool('wx_forecast', { city: 3 });
    expect(invalid.isError).toBe(true);
    expect(texts(invalid)).toContain('Invalid arguments for tool "forecast"');
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['weather://wx/stations']);
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate).sort()).toEqual(['urn:wx:weather:{code}', 'weather://wx/stations/{station}/today']);
    const read = await client.readResource('weather://wx/stations/north/today');
    expect(read.contents).toEqual([{ uri: 'weather://wx/stations/north/today', mimeType: 'text/plain', text: 'today at north' }]);
    expect((await client.readResource('urn:wx:weather:42')).contents[0]).toMatchObject({ uri: 'urn:wx:weather:42', text: 'code 42' });
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['wx_chat']);
    const prompt = await client.getPrompt('wx_chat', { topic: 'rain' });
    expect(JSON.stringify(prompt.messages)).toContain('Weather talk: rain');
    expect((await client.complete({ type: 'ref/prompt', name: 'wx_chat' }, { name: 'topic', value: 's' })).completion.values).toEqual(['snow', 'sun']);
    expect((await client.complete({ type: 'ref/resource', uri: 'weather://wx/stations/{station}/today' }, { name: 'station', value: 'n' })).completion.values).toEqual(['north']);
    await client.close();
  });

  it('resolves the mounted providers from their own server, and runs middleware parent first, then mounted', async () => {
    const order: string[] = [];
    const trace =
      (name: string): Middleware =>
      async (call, next) => {
        order.push(`${name}:${call.method}:${String((call.params as { name?: string }).name)}`);
        return next();
      };
    const { container } = await import('tsyringe');
    const childContainer = container.createChildContainer();
    const greetings = new McpServer({ name: 'greetings', version: '1', providers: [GreetTools], container: childContainer }).use(trace('child'));
    const parent = new McpServer({ name: 'parent', version: '1' }).use(trace('parent'));
    parent.mount(greetings, { namespace: 'hi' });
    const client = await createTestClient(parent);
    expect(texts(await client.callTool('hi_greet', { topic: 'ada' }))).toBe('hello ada (tools/call)');
    expect(order).toEqual(['parent:tools/call:hi_greet', 'child:tools/call:greet']);
    await client.close();
  });

  it('enforces the mounted server access rules against the parent caller', async () => {
    const parent = new McpServer({ name: 'parent', version: '1' });
    parent.mount([WeatherTools], { namespace: 'wx' });
    const anonymous = await createTestClient(parent);
    expect((await anonymous.listTools()).map((t) => t.name)).toEqual(['wx_forecast']);
    await expect(anonymous.callTool('wx_reset')).rejects.toThrow(/needs an authenticated caller|Unknown tool/);
    await anonymous.close();
    const admin = await createTestClient(parent, { principal: { subject: 'ada', scopes: ['weather:admin'], claims: {} } });
    expect((await admin.listTools()).map((t) => t.name)).toEqual(['wx_forecast', 'wx_reset']);
    expect(texts(await admin.callTool('wx_reset'))).toBe('reset');
    await admin.close();
  });

  it('follows the mounted server: items added, disabled and removed later, list_changed from the parent, unmount', async () => {
    const weather = new McpServer({ name: 'weather', version: '1', providers: [WeatherTools] });
    const parent = new McpServer({ name: 'parent', version: '1', providers: [OwnTools] });
    const mounted = parent.mount(weather, { namespace: 'wx' });
    const client = await createTestClient(parent);
    const changes: string[] = [];
    for (const method of ['notifications/tools/list_changed', 'notifications/prompts/list_changed']) client.onNotification(method, () => void changes.push(method));
    weather.register(GreetToolsPlain);
    await until(() => changes.includes('notifications/tools/list_changed'));
    expect((await client.listTools()).map((t) => t.name)).toContain('wx_wave');
    weather.tools.disable('forecast');
    await pause(10);
    expect((await client.listTools()).map((t) => t.name)).not.toContain('wx_forecast');
    weather.tools.enable('forecast');
    await pause(10);
    expect((await client.listTools()).map((t) => t.name)).toContain('wx_forecast');
    changes.length = 0;
    mounted.unmount();
    await until(() => changes.includes('notifications/tools/list_changed') && changes.includes('notifications/prompts/list_changed'));
    expect((await client.listTools()).map((t) => t.name)).toEqual(['own']);
    expect(await client.listPrompts()).toEqual([]);
    await client.close();
  });

  it('passes resource updates of the mounted server to the parent subscribers under the parent uri', async () => {
    const weather = new McpServer({ name: 'weather', version: '1', providers: [WeatherTools] });
    const parent = new McpServer({ name: 'parent', version: '1' });
    parent.mount(weather, { namespace: 'wx' });
    const client = await createTestClient(parent);
    const updated: unknown[] = [];
    client.onNotification('notifications/resources/updated', (params) => void updated.push(params));
    await client.subscribe('weather://wx/stations');
    weather.resources.notifyUpdated('weather://stations');
    await until(() => updated.length === 1);
    expect(updated).toEqual([{ uri: 'weather://wx/stations' }]);
    await client.close();
  });
});

class GreetToolsPlain {
  @Tool({ description: 'Waves' })
  wave(): string {
    return 'wave';
  }
}

class Clash {
  @Tool({ description: 'Clashes with the mounted forecast' })
  wx_forecast(): string {
    return 'clash';
  }
}

class LongNames {
  @Tool({ name: 'a.very.long.tool.name.that.goes.on.and.on.past.the.limit.of.sixty.four', description: 'long' })
  long(): string {
    return 'long';
  }

  @Tool({ name: 'a.very.long.tool.name.that.goes.on.and.on.past.the.limit.of.sixty.five', description: 'long too' })
  longer(): string {
    return 'longer';
  }
}

describe('server.mount: names', () => {
  it('refuses a collision at mount time, or skips it when told, and a later clashing register of the mounted server', async () => {
    const parent = new McpServer({ name: 'parent', version: '1', providers: [Clash] });
    const weather = new McpServer({ name: 'weather', version: '1', providers: [WeatherTools] });
    expect(() => parent.mount(weather, { namespace: 'wx' })).toThrow(DefinitionError);
    expect(() => parent.mount(weather, { namespace: 'wx' })).toThrow(/already has a tool named "wx_forecast"/);
    expect(parent.tools.names()).toEqual(['wx_forecast']);
    parent.mount(weather, { namespace: 'wx', onCollision: 'skip' });
    expect(parent.tools.names()).toEqual(['wx_forecast', 'wx_reset']);
    const client = await createTestClient(parent);
    expect(texts(await client.callTool('wx_forecast'))).toBe('clash');
    await client.close();

    const later = new McpServer({ name: 'later', version: '1' });
    const other = new McpServer({ name: 'parent2', version: '1', providers: [OwnTools] });
    other.mount(later, { namespace: 'x' });
    class OwnClash {
      @Tool({ description: 'clash' })
      own(): string {
        return 'no';
      }
    }
    class MakesXOwn {
      @Tool({ name: 'x_own', description: 'parent owns x_own' })
      xOwn(): string {
        return 'parent';
      }
    }
    other.register(MakesXOwn);
    expect(() => later.register(OwnClash)).toThrow(/would be "x_own" where this server is mounted/);
    expect(later.tools.names()).toEqual([]);
  });

  it('keeps the framework rule, refuses or shortens by the strict 64-character rule', () => {
    const strict = new McpServer({ name: 'p', version: '1' });
    expect(() => strict.mount([LongNames], { namespace: 'ns', names: 'strict' })).toThrow(/names: 'strict'/);
    expect(strict.tools.names()).toEqual([]);
    const shortened = new McpServer({ name: 'p', version: '1' });
    shortened.mount([LongNames], { namespace: 'ns', names: 'shorten' });
    const names = shortened.tools.names();
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(names).size).toBe(2);
    expect(names[0].startsWith('ns_a_very_long_tool_name')).toBe(true);
    const plain = new McpServer({ name: 'p', version: '1' });
    plain.mount([LongNames], { namespace: 'ns' });
    expect(plain.tools.names()[0]).toBe('ns_a.very.long.tool.name.that.goes.on.and.on.past.the.limit.of.sixty.four');
  });

  it('puts the namespace after the scheme of every template, {slug*} and {/slug*} alike, and reads through it', async () => {
    class Slugs {
      @Resource({ uri: 'docs://{slug*}', mimeType: 'text/plain' })
      one(args: { slug: string[] }): string {
        return `one ${[args.slug].flat().join(',')}`;
      }

      @Resource({ uri: 'wiki://pages{/path*}', mimeType: 'text/plain' })
      many(args: { path: string[] }): string {
        return `many ${[args.path].flat().join('/')}`;
      }
    }
    const parent = new McpServer({ name: 'p', version: '1' });
    parent.mount([Slugs], { namespace: 'kb' });
    expect(parent.resources.names().sort()).toEqual(['docs://kb/{slug*}', 'wiki://kb/pages{/path*}']);
    const client = await createTestClient(parent);
    expect((await client.readResource('docs://kb/intro')).contents[0]).toMatchObject({ uri: 'docs://kb/intro', text: 'one intro' });
    expect((await client.readResource('wiki://kb/pages/a/b')).contents[0]).toMatchObject({ uri: 'wiki://kb/pages/a/b', text: 'many a/b' });
    await expect(client.readResource('docs://intro')).rejects.toThrow(/not found/i);
    await client.close();
  });

  it('stacks nested mounts, refuses a cycle, and checks the namespace', async () => {
    const leaf = new McpServer({ name: 'leaf', version: '1', providers: [WeatherTools] });
    const middle = new McpServer({ name: 'middle', version: '1' });
    const top = new McpServer({ name: 'top', version: '1' });
    middle.mount(leaf, { namespace: 'leaf' });
    top.mount(middle, { namespace: 'mid' });
    expect(top.tools.names()).toEqual(['mid_leaf_forecast', 'mid_leaf_reset']);
    const client = await createTestClient(top);
    expect(texts(await client.callTool('mid_leaf_forecast', { city: 'Rome' }))).toBe('sunny in Rome');
    expect((await client.readResource('weather://mid/leaf/stations')).contents[0]).toMatchObject({ uri: 'weather://mid/leaf/stations' });
    await client.close();
    expect(() => leaf.mount(top, { namespace: 'loop' })).toThrow(/cycle/);
    expect(() => top.mount(top, { namespace: 'self' })).toThrow(/cycle/);
    expect(() => top.mount(leaf, { namespace: 'bad name' })).toThrow(/namespace must be/);
  });
});

class ListedPages {
  @Resource({ uri: 'wiki://pages/{name}', list: 'all', mimeType: 'text/plain' })
  page(vars: { name: string }) {
    return `page ${vars.name}`;
  }

  all() {
    return [{ uri: 'wiki://pages/a', name: 'a' }];
  }
}

describe('nested mounts of listed templates', () => {
  it('list what a template of a server mounted two levels down lists under both namespaces, readable there', async () => {
    const leaf = new McpServer({ name: 'leaf', version: '1', providers: [ListedPages] });
    const middle = new McpServer({ name: 'middle', version: '1' });
    const top = new McpServer({ name: 'top', version: '1' });
    middle.mount(leaf, { namespace: 'leaf' });
    top.mount(middle, { namespace: 'mid' });
    const client = await createTestClient(top);
    expect(await client.listResources()).toEqual([{ uri: 'wiki://mid/leaf/pages/a', name: 'a', mimeType: 'text/plain' }]);
    expect((await client.readResource('wiki://mid/leaf/pages/a')).contents[0]).toMatchObject({ uri: 'wiki://mid/leaf/pages/a', text: 'page a' });
    await client.close();
  });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await pause(5);
  }
}

class SlowTools {
  @Tool({ task: 'optional', description: 'Counts slowly' })
  async count(input: Topic): Promise<string> {
    await pause(20);
    return `counted ${input.topic}`;
  }
}

describe('server.mount: tasks', () => {
  it('runs a mounted task tool as a task of the parent: tasks/get and tasks/result there', async () => {

    const parent = new McpServer({ name: 'parent', version: '1', tasks: { pollIntervalMs: 20 } });
    parent.mount([SlowTools], { namespace: 'job' });
    const client = await TasksClient.connect(parent, {});
    const listed = (await client.request('tools/list')).result.tools;
    expect(listed.map((t: { name: string; execution?: unknown }) => [t.name, t.execution])).toEqual([['job_count', { taskSupport: 'optional' }]]);
    const created = await client.request('tools/call', { name: 'job_count', arguments: { topic: 'sheep' }, task: { ttl: 60_000 } });
    const taskId = created.result.task.taskId as string;
    const result = await client.request('tasks/result', { taskId });
    expect(result.result.content).toEqual([{ type: 'text', text: 'counted sheep' }]);
    expect((await client.request('tasks/get', { taskId })).result.status).toBe('completed');
    // The mounted server validates the arguments of a task too.
    const bad = await client.request('tools/call', { name: 'job_count', arguments: { topic: 1 }, task: { ttl: 60_000 } });
    const failed = await client.request('tasks/result', { taskId: bad.result.task.taskId });
    expect(failed.result.isError).toBe(true);
    await client.close();
    await parent.close();
  });
});

class Dashboard {
  @Tool({ description: 'Shows the dashboard', ui: { resourceUri: 'ui://dashboard' } })
  show(): string {
    return 'dashboard';
  }

  @Resource({ uri: 'ui://dashboard', ui: {} })
  page(): string {
    return '<html><body>dashboard</body></html>';
  }
}

describe('server.mount: apps', () => {
  it('keeps ui:// uris, so a mounted tool still names its UI', async () => {
    const parent = new McpServer({ name: 'parent', version: '1' });
    parent.mount([Dashboard], { namespace: 'dash' });
    const client = await createTestClient(parent, { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } });
    const [tool] = await client.listTools();
    expect(tool.name).toBe('dash_show');
    expect((tool._meta as { ui: { resourceUri: string } }).ui.resourceUri).toBe('ui://dashboard');
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['ui://dashboard']);
    expect((await client.readResource('ui://dashboard')).contents[0]).toMatchObject({ uri: 'ui://dashboard', mimeType: 'text/html;profile=mcp-app' });
    await client.close();
  });
});

@injectable()
class SkillSource {
  constructor(private readonly greeter: Greeter) {}

  @Skill({ path: 'release-checklist', description: 'Check a release' })
  checklist(): SkillContent {
    return { instructions: `# Release\n\n${this.greeter.greet('team')}\n`, files: { 'steps.md': '1. Tag\n' } };
  }
}

describe('server.mount: skills', () => {
  it('serves the mounted skills under skill://<namespace>/…, made by the mounted server', async () => {
    const { container } = await import('tsyringe');
    const inner = new McpServer({ name: 'inner', version: '1', providers: [SkillSource], container: container.createChildContainer() });
    const parent = new McpServer({ name: 'parent', version: '1' });
    parent.mount(inner, { namespace: 'team' });
    const client = await createTestClient(parent);
    expect((await client.listSkills()).map((s) => s.uri)).toEqual(['skill://team/release-checklist/SKILL.md']);
    const got = (await client.request('skills/get', { uri: 'skill://team/release-checklist/SKILL.md' })) as { skill: { uri: string; resources?: Array<{ uri: string }> } };
    expect(got.skill.uri).toBe('skill://team/release-checklist/SKILL.md');
    expect(got.skill.resources?.map((r) => r.uri).sort()).toEqual(['skill://team/release-checklist/SKILL.md', 'skill://team/release-checklist/steps.md']);
    const read = await client.readResource('skill://team/release-checklist/SKILL.md');
    expect((read.contents[0] as { text: string }).text).toContain('hello team');
    expect((await client.readResource('skill://team/release-checklist/steps.md')).contents[0]).toMatchObject({ text: '1. Tag\n' });
    await client.close();
  });
});

describe('server.mount: what the review found', () => {
  const authenticated = {
    name: 'test-auth',
    register(host: { provide(key: unknown, value: unknown): void }) {
      host.provide(AuthenticationService, { authenticate: () => undefined, challenge: () => 'Bearer', allowAnonymous: true });
    },
  };

  it("checks the parent's own rules (its authentication) before a mounted prompt, read or completion", async () => {
    const parent = new McpServer({ name: 'parent', version: '1' });
    parent.plugin(authenticated as never);
    parent.mount([WeatherTools], { namespace: 'wx' });
    const anonymous = await createTestClient(parent);
    await expect(anonymous.getPrompt('wx_chat', { topic: 'rain' })).rejects.toThrow(/authenticated caller/);
    await expect(anonymous.readResource('weather://wx/stations')).rejects.toThrow(/authenticated caller/);
    await expect(anonymous.complete({ type: 'ref/prompt', name: 'wx_chat' }, { name: 'topic', value: 'r' })).rejects.toThrow(/authenticated caller/);
    await anonymous.close();
    const known = await createTestClient(parent, { principal: { subject: 'ada', scopes: [], claims: {} } });
    expect(JSON.stringify((await known.getPrompt('wx_chat', { topic: 'rain' })).messages)).toContain('rain');
    await known.close();
  });

  it('takes tools made from mounted ones out with the mount, and keeps a renamed transform hiding its original', async () => {
    const weather = new McpServer({ name: 'weather', version: '1', providers: [WeatherTools] });
    const parent = new McpServer({ name: 'parent', version: '1' });
    const mounted = parent.mount(weather, { namespace: 'wx' });
    parent.transformTool('wx_forecast', { name: 'forecast_now' });
    expect(parent.tools.names()).toEqual(['wx_reset', 'forecast_now']);
    weather.tools.disable('forecast');
    await pause(5);
    weather.tools.enable('forecast');
    await pause(5);
    // The transform hid the original; the mounted server's enable does not bring it back.
    expect(parent.tools.names()).toEqual(['wx_reset', 'forecast_now']);
    mounted.unmount();
    expect(parent.tools.names()).toEqual([]);
  });

  it('lets the mounted server replace an item within one tick, and keeps contents uris that are not its own', async () => {
    class Linker {
      @Resource({ uri: 'docs://page', mimeType: 'text/plain' })
      page() {
        return { contents: [{ uri: 'docs://page', text: 'the page' }, { uri: 'https://example.com/elsewhere', text: 'a link' }] };
      }
    }
    const docs = new McpServer({ name: 'docs', version: '1', providers: [WeatherTools, Linker] });
    const parent = new McpServer({ name: 'parent', version: '1' });
    parent.mount(docs, { namespace: 'd' });
    docs.tools.remove('forecast');
    class Forecast2 {
      @Tool({ description: 'A new forecast' })
      forecast(): string {
        return 'new';
      }
    }
    docs.register(Forecast2);
    await pause(5);
    const client = await createTestClient(parent);
    expect(texts(await client.callTool('d_forecast'))).toBe('new');
    const read = await client.readResource('docs://d/page');
    expect(read.contents.map((c) => c.uri)).toEqual(['docs://d/page', 'https://example.com/elsewhere']);
    await client.close();
  });

  it('refuses a template without a literal scheme, and names tool search keeps for itself', () => {
    class Open {
      @Resource({ uri: '{+anything}', mimeType: 'text/plain' })
      any(): string {
        return 'x';
      }
    }
    expect(() => new McpServer({ name: 'p', version: '1' }).mount([Open], { namespace: 'o' })).toThrow(/no literal scheme/);
    class Tools {
      @Tool({ description: 'becomes search_tools' })
      tools(): string {
        return 'x';
      }
    }
    const searching = new McpServer({ name: 'p', version: '1', toolSearch: true });
    expect(() => searching.mount([Tools], { namespace: 'search' })).toThrow(DefinitionError);
    const other = new McpServer({ name: 'p', version: '1', providers: [OwnTools], toolSearch: true });
    expect(() => other.transformTool('own', { name: 'call_tool' })).toThrow(/tool search/);
  });
});

describe('server.mount: capabilities', () => {
  it('declares completions to clients that connect after the mounted server gained some', async () => {
    class Plain {
      @Prompt({ description: 'A prompt without completions yet' })
      ask(args: Topic): string {
        return `ask ${args.topic}`;
      }
    }
    class Later {
      @Completion({ prompt: 'ask', argument: 'topic' })
      topics(value: string): string[] {
        return ['one', 'two'].filter((t) => t.startsWith(value));
      }
    }
    const inner = new McpServer({ name: 'inner', version: '1', providers: [Plain] });
    const parent = new McpServer({ name: 'parent', version: '1' });
    parent.mount(inner, { namespace: 'in' });
    const before = await createTestClient(parent);
    expect(before.serverCapabilities.completions).toBeUndefined();
    await before.close();
    inner.register(Later);
    const after = await createTestClient(parent);
    expect(after.serverCapabilities.completions).toEqual({});
    expect((await after.complete({ type: 'ref/prompt', name: 'in_ask' }, { name: 'topic', value: 't' })).completion.values).toEqual(['two']);
    await after.close();
  });
});
