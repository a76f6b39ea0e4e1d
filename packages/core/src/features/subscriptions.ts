import { AccessDeniedError, InvalidParamsError } from '../errors';
import type { ChangeFilter } from '../runtime/ChangeBroadcaster';
import type { Context } from '../runtime/Context';
import type { FeatureCatalog, FeatureServer, TaskHost } from './rooms';
import type { CorePlugin } from '../runtime/plugins';
import { findResource } from './resources';
import { inSkillNamespace } from './skills';
import { listenToTasks } from './tasks';

const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

/** What a subscription reads of the catalog: what may be listened to, its access rules, and the changes. */
type SubscriptionsCatalog = Pick<FeatureCatalog, 'resources' | 'templates' | 'skills' | 'access' | 'changes'>;

/**
 * `core:subscriptions`: `subscriptions/listen` (2026-07-28). The answer is a stream: first
 * `notifications/subscriptions/acknowledged` with the part of the filter the server honours,
 * then the change notifications it lets through, each tagged with the subscription id (the
 * request's id). It ends when the client cancels or closes it, or, with a result, when the
 * server closes.
 */
export function subscriptionsPlugin(catalog: SubscriptionsCatalog, server: Pick<FeatureServer, 'capabilities'>, tasks: Pick<TaskHost, 'tools' | 'tasks'>): CorePlugin {
  return {
    name: 'core:subscriptions',
    register: (plugin) => plugin.route('subscriptions/listen', (params, ctx) => listen(catalog, server, tasks, params, ctx), ['modern']),
  };
}

async function listen(host: SubscriptionsCatalog, server: Pick<FeatureServer, 'capabilities'>, taskHost: Pick<TaskHost, 'tools' | 'tasks'>, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
  const honoured = honouredFilter(params.notifications, server.capabilities(ctx.revision));
  if (honoured.resourceSubscriptions && host.access.active) honoured.resourceSubscriptions = await readable(host, honoured.resourceSubscriptions, ctx);
  const meta = { [SUBSCRIPTION_ID_META]: ctx.requestId };
  const tasks = await listenToTasks(taskHost, (params.notifications as Record<string, unknown> | undefined)?.taskIds, ctx, (task) =>
    ctx.notifyClient('notifications/tasks', { ...task, _meta: meta }),
  );
  ctx.notifyClient('notifications/subscriptions/acknowledged', { _meta: meta, notifications: tasks ? { ...honoured, taskIds: tasks.taskIds } : honoured });
  return new Promise((resolve) => {
    const stop = host.changes.listen({
      filter: honoured,
      deliver: (method, notification) => ctx.notifyClient(method, { ...notification, _meta: meta }),
      end: () => {
        tasks?.stop();
        resolve({ _meta: meta });
      },
    });
    tasks?.start();
    // Cancelled or disconnected: nothing more is sent, not even a result.
    ctx.signal.addEventListener('abort', () => {
      stop();
      tasks?.stop();
      resolve({ _meta: meta });
    });
  });
}

/** The uris whose resource the caller may read: what it may not read, it does not hear about either. */
async function readable(host: Pick<FeatureCatalog, 'resources' | 'templates' | 'skills' | 'access'>, uris: readonly string[], ctx: Context): Promise<string[]> {
  const allowed = await Promise.all(
    uris.map(async (uri) => {
      const target = findResource(host, uri)?.target ?? inSkillNamespace(host, uri)?.target;
      // Nothing to read there now, so no rule to check: under access rules that is not enough.
      if (!target) return false;
      try {
        await host.access.check(target, ctx);
        return true;
      } catch (error) {
        if (error instanceof AccessDeniedError) return false;
        throw error;
      }
    }),
  );
  return uris.filter((_, i) => allowed[i]);
}

/** The requested filter, checked, minus what the server does not offer. */
function honouredFilter(requested: unknown, capabilities: Record<string, unknown>): ChangeFilter {
  if (requested === undefined) requested = {};
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
    throw new InvalidParamsError('subscriptions/listen: "notifications" must be an object');
  }
  const filter = requested as Record<string, unknown>;
  const offers = (kind: string, feature: string) => Boolean((capabilities[kind] as Record<string, unknown> | undefined)?.[feature]);
  const honoured: ChangeFilter = {};
  for (const [flag, kind] of [
    ['toolsListChanged', 'tools'],
    ['promptsListChanged', 'prompts'],
    ['resourcesListChanged', 'resources'],
  ] as const) {
    if (filter[flag] !== undefined && typeof filter[flag] !== 'boolean') throw new InvalidParamsError(`subscriptions/listen: "notifications.${flag}" must be a boolean`);
    if (filter[flag] === true && offers(kind, 'listChanged')) honoured[flag] = true;
  }
  const uris = filter.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string')) {
      throw new InvalidParamsError('subscriptions/listen: "notifications.resourceSubscriptions" must be an array of resource uris');
    }
    if (uris.length > 0 && offers('resources', 'subscribe')) honoured.resourceSubscriptions = [...new Set(uris as string[])];
  }
  return honoured;
}
