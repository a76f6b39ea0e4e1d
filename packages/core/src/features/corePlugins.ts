import type { FeatureCatalog, FeatureServer, SessionConnections, TaskHost } from './rooms';
import type { CorePlugin } from '../runtime/plugins';
import { appsPlugin } from './apps';
import { completionPlugin } from './completion';
import { discoverPlugin } from './discover';
import { elicitationPlugin } from './elicitation';
import { loggingPlugin } from './logging';
import { promptsPlugin } from './prompts';
import { resourcesPlugin } from './resources';
import { rootsPlugin } from './roots';
import { samplingPlugin } from './sampling';
import { serverCardPlugin } from './serverCard';
import type { ServerCard } from './serverCard';
import type { ToolInvoker } from './sampling';
import { skillsPlugin } from './skills';
import { subscriptionsPlugin } from './subscriptions';
import { tasksPlugin } from './tasks';
import { ToolsSeam, toolsPlugin } from './tools';
import { toolSearchPlugin } from './toolSearch';
import type { ToolSearch } from './toolSearch';

const pingPlugin: CorePlugin = {
  name: 'core:ping',
  // 2026-07-28 has no ping: without a connection there is nothing to keep alive.
  register: (plugin) => plugin.route('ping', () => ({}), ['handshake']),
};

/** The server's rooms, from which each feature is handed what it uses. */
export interface FeatureRooms {
  readonly catalog: FeatureCatalog;
  readonly server: FeatureServer;
  readonly sessions: SessionConnections;
  /** How the server's own items run author code: the tools a sampling request offers. */
  readonly items: ToolInvoker;
  /** Tool search, when the server has the `toolSearch` option. */
  readonly toolSearch: ToolSearch | undefined;
  /** The server card, when the server has the `serverCard` option. */
  readonly serverCard?: ServerCard;
}

/**
 * The built-in features, in the order a server adds them: each a plugin owning its methods,
 * notifications, capability or client feature, given only the members it uses.
 */
export function corePlugins({ catalog, server, sessions, items, toolSearch, serverCard }: FeatureRooms): CorePlugin[] {
  const tasks: TaskHost = {
    tools: catalog.tools,
    tasks: server.tasks,
    debug: server.debug,
    container: server.container,
    clientFeatures: server.clientFeatures,
    reportError: (what, error) => server.reportError(what, error),
    onServing: (hook) => server.onServing(hook),
    restoreScope: (saved, session) => server.restoreScope(saved, session),
    sessionConnection: (sessionId) => sessions.sessionConnection(sessionId),
  };
  const seam = new ToolsSeam();
  const search = toolSearch && toolSearchPlugin(toolSearch, catalog, server, seam);
  return [
    pingPlugin,
    discoverPlugin(server),
    loggingPlugin,
    // In front of the tool methods: placed before core:tools routes them.
    ...(search ? [search] : []),
    toolsPlugin(catalog, tasks, seam),
    tasksPlugin(tasks),
    promptsPlugin(catalog),
    resourcesPlugin(catalog),
    skillsPlugin(catalog),
    appsPlugin(catalog),
    completionPlugin(catalog),
    subscriptionsPlugin(catalog, server, tasks),
    samplingPlugin(items),
    elicitationPlugin,
    rootsPlugin,
    // An HTTP stage only: the card is read before any connection.
    ...(serverCard ? [serverCardPlugin(serverCard)] : []),
  ];
}
