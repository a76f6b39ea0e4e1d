import type { FeatureHost } from './FeatureHost';
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
import { skillsPlugin } from './skills';
import { subscriptionsPlugin } from './subscriptions';
import { tasksPlugin } from './tasks';
import { toolsPlugin } from './tools';

const pingPlugin: CorePlugin = {
  name: 'core:ping',
  // 2026-07-28 has no ping: without a connection there is nothing to keep alive.
  register: (plugin) => plugin.route('ping', () => ({}), ['handshake']),
};

/**
 * The built-in features, in the order a server adds them: each a plugin owning its methods,
 * notifications, capability or client feature.
 */
export function corePlugins(host: FeatureHost): CorePlugin[] {
  return [
    pingPlugin,
    discoverPlugin(host),
    loggingPlugin,
    toolsPlugin(host),
    tasksPlugin(host),
    promptsPlugin(host),
    resourcesPlugin(host),
    skillsPlugin(host),
    appsPlugin(host),
    completionPlugin(host),
    subscriptionsPlugin(host),
    samplingPlugin(host),
    elicitationPlugin,
    rootsPlugin,
  ];
}
