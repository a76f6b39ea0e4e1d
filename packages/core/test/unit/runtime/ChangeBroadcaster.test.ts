import { ChangeBroadcaster } from '../../../src/runtime/ChangeBroadcaster';
import type { ChangeFilter } from '../../../src/runtime/ChangeBroadcaster';

function listener(filter: ChangeFilter, wantsResource?: (uri: string) => boolean) {
  const delivered: Array<[string, Record<string, unknown>]> = [];
  const ended = jest.fn();
  return { filter, wantsResource, delivered, end: ended, deliver: (method: string, params: Record<string, unknown>) => void delivered.push([method, params]) };
}

describe('ChangeBroadcaster', () => {
  it('delivers each change to the listeners whose filter asks for it', () => {
    const changes = new ChangeBroadcaster();
    const tools = listener({ toolsListChanged: true });
    const everything = listener({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['a://1'] });
    const dynamic = listener({}, (uri) => uri === 'a://2');
    for (const l of [tools, everything, dynamic]) changes.listen(l);
    changes.listChanged('notifications/tools/list_changed');
    changes.listChanged('notifications/prompts/list_changed');
    changes.resourceUpdated('a://1');
    changes.resourceUpdated('a://2');
    expect(tools.delivered).toEqual([['notifications/tools/list_changed', {}]]);
    expect(everything.delivered.map(([m]) => m)).toEqual(['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/updated']);
    expect(dynamic.delivered).toEqual([['notifications/resources/updated', { uri: 'a://2' }]]);
  });

  it('stops delivering to a removed listener, and ends every listener once', () => {
    const changes = new ChangeBroadcaster();
    const kept = listener({ toolsListChanged: true });
    const removed = listener({ toolsListChanged: true });
    changes.listen(kept);
    changes.listen(removed)();
    changes.listChanged('notifications/tools/list_changed');
    expect(removed.delivered).toEqual([]);
    changes.endAll();
    changes.endAll();
    expect(kept.end).toHaveBeenCalledTimes(1);
    expect(removed.end).not.toHaveBeenCalled();
    changes.listChanged('notifications/tools/list_changed');
    expect(kept.delivered).toHaveLength(1);
  });
});
