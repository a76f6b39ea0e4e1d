/**
 * One test per defect a review of the access rules found, each failing before its fix.
 */
import 'reflect-metadata';
import { Context, DefinitionError, McpServer, metadataStore, Public, Resource, Roles, Scopes, Tool } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';

beforeEach(() => metadataStore.clear());

const principal = (scopes: string[], roles: string[] = []): Principal => ({ subject: 's', scopes, roles, claims: {} });
const names = async (client: { listTools(): Promise<Array<{ name: string }>> }) => (await client.listTools()).map((t) => t.name);

it('keeps the list cache of roles ["Account", "Manager"] apart from that of ["Account Manager"]', async () => {
  class Payroll {
    @Tool({ description: 'Payroll' })
    @Roles('Manager')
    payroll(): string {
      return 'paid';
    }

    @Tool({ description: 'Open' })
    @Public()
    open(): string {
      return 'open';
    }
  }
  const server = new McpServer({ name: 'cache', version: '1', providers: [Payroll] });
  const two = await createTestClient(server, { principal: principal([], ['Account', 'Manager']) });
  expect(await names(two)).toEqual(['payroll', 'open']);
  const one = await createTestClient(server, { principal: principal([], ['Account Manager']) });
  expect(await names(one)).toEqual(['open']);
  const spaced = await createTestClient(server, { principal: principal(['a b'], []) });
  expect(await names(spaced)).toEqual(['open']);
  await Promise.all([two.close(), one.close(), spaced.close()]);
  await server.close();
});

it('lets a subclass that overrides a @Public() method with @Scopes keep it closed', async () => {
  class Base {
    @Tool({ description: 'Report' })
    @Public()
    report(): string {
      return 'public';
    }
  }
  class Secured extends Base {
    @Tool({ description: 'Report' })
    @Scopes('admin:read')
    override report(): string {
      return 'SECRET';
    }
  }
  const client = await createTestClient([Secured]);
  await expect(client.callTool('report')).rejects.toMatchObject({ code: -32003, data: { reason: 'unauthenticated', scopes: ['admin:read'] } });
  await client.close();
});

it('opens the methods of a @Public() subclass whose base class has @Scopes, as documented', async () => {
  @Scopes('base:read')
  class Base {
    @Tool({ description: 'Inherited' })
    inherited(): string {
      return 'inherited';
    }
  }
  @Public()
  class Opened extends Base {}
  const client = await createTestClient([Opened]);
  expect((await client.callTool('inherited')).content[0].text).toBe('inherited');
  await client.close();
});

it('refuses @Public() beside rules of the same method when the server is built', () => {
  class Confused {
    @Tool({ description: 'Both' })
    @Public()
    @Scopes('x')
    both(): string {
      return 'both';
    }
  }
  expect(() => new McpServer({ name: 'c', version: '1', providers: [Confused] })).toThrow(DefinitionError);
  expect(() => new McpServer({ name: 'c', version: '1', providers: [Confused] })).toThrow('Confused.both: @Public() opens the method to anyone; remove it or its @Scopes/@Roles/@Guard');
});

it('keeps the rules a server read when it registered its providers, whatever happens to the metadata store later', async () => {
  class Secret {
    @Tool({ description: 'Secret' })
    @Scopes('admin')
    secret(): string {
      return 'SECRET';
    }
  }
  const server = new McpServer({ name: 'snap', version: '1', providers: [Secret] });
  metadataStore.clear();
  const client = await createTestClient(server);
  await expect(client.callTool('secret')).rejects.toBeInstanceOf(McpRequestError);
  await client.close();
  await server.close();
});

it('leaves a server without rules public and unfiltered when some other class declares rules', async () => {
  class Plain {
    @Tool({ description: 'Plain' })
    plain(): string {
      return 'plain';
    }
  }
  const server = new McpServer({ name: 'plain', version: '1', providers: [Plain] });
  class Elsewhere {
    @Tool({ description: 'Elsewhere' })
    @Scopes('x')
    elsewhere(): string {
      return 'x';
    }
  }
  expect(Elsewhere).toBeDefined();
  const client = await createTestClient(server, { protocolVersion: '2026-07-28' });
  expect((await client.request('tools/list', {})).cacheScope).toBe('public');
  await client.close();
  await server.close();
});

it('runs no tool in the ctx.sample tool loop that the caller may not call itself', async () => {
  let purged = false;
  class AdminTools {
    @Tool({ description: 'Purges everything' })
    @Roles('admin')
    purge(): string {
      purged = true;
      return 'purged';
    }
  }
  class Agent {
    @Tool({ description: 'Lets the model act' })
    @Public()
    async agent(ctx: Context): Promise<string> {
      const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'go' } }], maxTokens: 10, tools: [AdminTools], maxIterations: 2 });
      return JSON.stringify(result.transcript.at(-2));
    }
  }
  let turn = 0;
  const client = await createTestClient([Agent], {
    principal: principal([], ['user']),
    sampling: () =>
      turn++ === 0
        ? { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'purge', input: {} }], model: 'm', stopReason: 'toolUse' }
        : { role: 'assistant', content: { type: 'text', text: 'done' }, model: 'm', stopReason: 'endTurn' },
  });
  const answer = JSON.parse((await client.callTool('agent')).content[0].text as string);
  expect(purged).toBe(false);
  expect(answer.content[0]).toMatchObject({ type: 'tool_result', toolUseId: 'u1', isError: true, content: [{ type: 'text', text: 'Access denied: tool "purge" is for the role admin' }] });
  await client.close();
});

it('honours in subscriptions/listen only the resources the caller may read', async () => {
  class Docs {
    @Resource({ uri: 'docs://open', mimeType: 'text/plain' })
    @Public()
    open(): string {
      return 'open';
    }

    @Resource({ uri: 'docs://secret', mimeType: 'text/plain' })
    @Scopes('docs:secret')
    secret(): string {
      return 'secret';
    }
  }
  const server = new McpServer({ name: 'docs', version: '1', providers: [Docs] });
  const client = await createTestClient(server, { protocolVersion: '2026-07-28', principal: principal(['docs:read']) });
  const subscription = await client.listen({ resourceSubscriptions: ['docs://open', 'docs://secret', 'docs://unknown'] });
  expect(subscription.honoured).toEqual({ resourceSubscriptions: ['docs://open'] });
  await client.close();
  await server.close();
});
