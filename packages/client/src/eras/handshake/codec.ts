import { HANDSHAKE_VERSIONS } from '@typemcp/core';
import { capabilitiesFor, isObject } from '../capabilities';
import type { ClientEra, Link, SendOptions } from '../ClientEra';
import { waitForTask } from '../tasks';
import type { CallToolOptions, CallToolResult, JsonObject, ListenFilter, LoggingLevel, ServerDescription, Subscription, TaskStatus } from '../../types';

/**
 * The handshake era (2024-11-05 to 2025-11-25): `initialize` asks for `version` and the server
 * answers with the one it speaks; `notifications/initialized`; then requests go as they are,
 * in the session the server opened (over HTTP its `Mcp-Session-Id` and the agreed
 * `MCP-Protocol-Version` go with every later message, and a GET stream carries what the
 * server sends outside requests).
 */
export async function initialize(link: Link, version: string): Promise<ClientEra> {
  link.transport.setHeaders?.({});
  const capabilities = capabilitiesFor(version, link.options);
  const result = await link.send('initialize', { protocolVersion: version, capabilities, clientInfo: link.clientInfo });
  const agreed = String(result.protocolVersion);
  if (link.options.strictVersion && agreed !== version) throw new Error(`Asked the server for protocol ${version} but it answered ${agreed}`);
  if (!(HANDSHAKE_VERSIONS as readonly string[]).includes(agreed)) {
    throw new Error(`The server answered initialize with protocol ${agreed}, which this client does not speak (it speaks ${HANDSHAKE_VERSIONS.join(', ')})`);
  }
  link.transport.setHeaders?.({ 'mcp-protocol-version': agreed });
  await link.notify('notifications/initialized');
  link.transport.listen?.();
  const server: ServerDescription = {
    protocolVersion: agreed,
    serverInfo: (result.serverInfo as ServerDescription['serverInfo'] | undefined) ?? { name: '', version: '' },
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
  };
  if (typeof result.instructions === 'string') server.instructions = result.instructions;
  return new HandshakeEra(link, server, capabilities);
}

class HandshakeEra implements ClientEra {
  readonly stateless = false;

  constructor(
    private readonly link: Link,
    readonly server: ServerDescription,
    readonly capabilities: JsonObject,
  ) {}

  get protocolVersion(): string {
    return this.server.protocolVersion;
  }

  request(method: string, params: JsonObject | undefined, options?: SendOptions): Promise<JsonObject> {
    return this.link.send(method, params, options);
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    await this.request('logging/setLevel', { level });
  }

  async ping(options?: SendOptions): Promise<void> {
    await this.request('ping', undefined, options);
  }

  /** `resources/subscribe` for each resource; list changes reach every session whose server declares `listChanged`. */
  async listen(filter: ListenFilter): Promise<Subscription> {
    const capabilities = this.server.capabilities;
    const declares = (feature: string, flag: string) => isObject(capabilities[feature]) && (capabilities[feature] as JsonObject)[flag] === true;
    const honoured: ListenFilter = {};
    if (filter.toolsListChanged && declares('tools', 'listChanged')) honoured.toolsListChanged = true;
    if (filter.promptsListChanged && declares('prompts', 'listChanged')) honoured.promptsListChanged = true;
    if (filter.resourcesListChanged && declares('resources', 'listChanged')) honoured.resourcesListChanged = true;
    const uris = filter.resourceSubscriptions ?? [];
    for (const uri of uris) await this.request('resources/subscribe', { uri });
    if (uris.length > 0) honoured.resourceSubscriptions = [...uris];
    let end!: (how: 'graceful' | 'closed') => void;
    const ended = new Promise<'graceful' | 'closed'>((resolve) => (end = resolve));
    let open = true;
    return {
      honoured,
      ended,
      close: async () => {
        if (!open) return;
        open = false;
        try {
          for (const uri of uris) await this.request('resources/unsubscribe', { uri });
        } finally {
          end('closed');
        }
      },
    };
  }

  /** 2025-11-25 tasks: the call carries `task`, the server answers with the task, polled with `tasks/get`; `tasks/result` brings its result. */
  async callToolAsTask(name: string, args: JsonObject | undefined, options: CallToolOptions): Promise<CallToolResult> {
    const task = options.task === true ? {} : { ...options.task };
    const params: JsonObject = { name, task };
    if (args !== undefined) params.arguments = args;
    const created = await this.request('tools/call', params, options);
    if (!isObject(created.task)) return created as CallToolResult; // the server ran it at once
    const first = created.task as TaskStatus;
    options.onTask?.(first);
    await waitForTask(first, (taskId) => this.request('tasks/get', { taskId }, { signal: options.signal, headers: options.headers }) as Promise<TaskStatus>, options, (status) => status === 'input_required');
    return (await this.request('tasks/result', { taskId: first.taskId }, { signal: options.signal, headers: options.headers, timeoutMs: options.timeoutMs })) as CallToolResult;
  }
}
