/**
 * What `typemcp registry init` reads of an application: the identity its servers declare
 * (with their environment), heard while it loads, its servers not listening; and the
 * `environment` option, checked when the server is made.
 */
import 'reflect-metadata';
import { McpServer } from '../../src';
import { collectServers } from '../../src/build';
import { DefinitionError } from '../../src/errors';
import type { McpServerOptions } from '../../src';

const made: McpServer[] = [];
const make = (options: McpServerOptions) => {
  const server = new McpServer(options);
  made.push(server);
  return server;
};
afterAll(() => Promise.all(made.map((server) => server.close())));

describe('collectServers', () => {
  it('hears each server made while loading, in order, with its declared identity; listening binds nothing', async () => {
    const servers = await collectServers(async () => {
      const server = make({
        name: 'weather',
        version: '1.2.3',
        title: 'Weather',
        description: 'Forecasts',
        websiteUrl: 'https://example.com',
        instructions: 'not part of the identity',
        environment: [{ name: 'API_KEY', description: 'The key', isRequired: true, isSecret: true }],
      });
      make({ name: 'second', version: '0.0.1' });
      await server.listen({ transport: 'http', port: 1 });
    });
    expect(servers).toEqual([
      { name: 'weather', version: '1.2.3', title: 'Weather', description: 'Forecasts', websiteUrl: 'https://example.com', icons: undefined, environment: [{ name: 'API_KEY', description: 'The key', isRequired: true, isSecret: true }] },
      expect.objectContaining({ name: 'second', version: '0.0.1' }),
    ]);
  });

  it('hears nothing outside a collection', async () => {
    await collectServers(() => undefined);
    const outside = make({ name: 'later', version: '1.0.0' });
    expect(outside).toBeInstanceOf(McpServer);
    expect(await collectServers(() => undefined)).toEqual([]);
  });
});

describe('the environment option', () => {
  it.each([
    [[{ name: '1ST' }], /names a variable "1ST"/],
    [[{ name: 'A-B' }], /names a variable "A-B"/],
    [[{ name: 'KEY' }, { name: 'KEY' }], /declares KEY twice/],
    [[{ name: 'KEY', isSecret: 'yes' }], /KEY: isSecret must be true or false/],
    [[{ name: 'PORT', default: 3000 }], /PORT: default must be a string/],
    ['PORT', /must be a list/],
  ])('refuses %j', (environment, message) => {
    const attempt = () => make({ name: 's', version: '1.0.0', environment: environment as never });
    expect(attempt).toThrow(DefinitionError);
    expect(attempt).toThrow(message);
  });

  it('takes a well-formed list', () => {
    expect(() => make({ name: 's', version: '1.0.0', environment: [{ name: 'PORT', description: 'Port', default: '3000' }, { name: '_TOKEN', isSecret: true }] })).not.toThrow();
  });
});
