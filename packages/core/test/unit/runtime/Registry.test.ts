import { DefinitionError } from '../../../src/errors';
import { Registry } from '../../../src/runtime/Registry';

const tick = () => new Promise((resolve) => process.nextTick(resolve));

describe('Registry', () => {
  it('lists enabled items in registration order and caches the list until a change', () => {
    const registry = new Registry<string>('tool');
    registry.add('b', 'B', 'X.b');
    registry.add('a', 'A', 'X.a');
    const first = registry.list();
    expect(first).toEqual(['B', 'A']);
    expect(registry.list()).toBe(first);
    registry.disable('b');
    expect(registry.list()).toEqual(['A']);
    expect(registry.get('b')).toBeUndefined();
    registry.enable('b');
    expect(registry.list()).toEqual(['B', 'A']);
    expect(registry.remove('a')).toBe(true);
    expect(registry.remove('a')).toBe(false);
    expect(registry.list()).toEqual(['B']);
  });

  it('refuses a duplicate name, naming where it came from', () => {
    const registry = new Registry<string>('tool');
    registry.add('echo', 'one', 'A.echo');
    expect(() => registry.add('echo', 'two', 'B.echo')).toThrow(DefinitionError);
    expect(() => registry.add('echo', 'two', 'B.echo')).toThrow(/B\.echo: a tool named "echo" is already registered/);
  });

  it('tells listeners once per tick, and not for no-op changes', async () => {
    const registry = new Registry<string>('tool');
    const listener = jest.fn();
    registry.onChange(listener);
    registry.add('a', 'A', 'X.a');
    registry.add('b', 'B', 'X.b');
    registry.disable('a');
    await tick();
    expect(listener).toHaveBeenCalledTimes(1);
    registry.enable('b');
    registry.disable('missing');
    await tick();
    expect(listener).toHaveBeenCalledTimes(1);
    registry.remove('b');
    await tick();
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('removes a name only while it still holds the given item', () => {
    const registry = new Registry<{ id: number }>('tool');
    const first = { id: 1 };
    const second = { id: 2 };
    registry.add('a', first, 'test');
    registry.remove('a');
    registry.add('a', second, 'test');
    expect(registry.removeIfHolds('a', first)).toBe(false);
    expect(registry.get('a')).toBe(second);
    expect(registry.removeIfHolds('a', second)).toBe(true);
    expect(registry.has('a')).toBe(false);
  });
});

describe('Registry covers', () => {
  it('hide what is registered under a name, across remove, re-add, enable and disable, until lifted', () => {
    const registry = new Registry<string>('tool');
    registry.add('a', 'a1', 'test');
    registry.add('b', 'b1', 'test');
    registry.hide('a');
    expect(registry.list()).toEqual(['b1']);
    expect(registry.get('a')).toBeUndefined();
    expect(registry.itemNamed('a')).toBe('a1');
    expect(registry.all().map((e) => e.name)).toEqual(['b']);
    registry.remove('a');
    registry.add('a', 'a2', 'test');
    registry.disable('a');
    registry.enable('a');
    expect(registry.get('a')).toBeUndefined();
    expect(registry.list()).toEqual(['b1']);
    expect(registry.isEnabled('a')).toBe(true);
    registry.uncover('a');
    expect(registry.get('a')).toBe('a2');
    expect(registry.list()).toEqual(['b1', 'a2']);
  });

  it('show their own item in place of the covered one, at its position, while one is registered and enabled', () => {
    const registry = new Registry<string>('tool');
    registry.add('a', 'a1', 'test');
    registry.add('b', 'b1', 'test');
    registry.cover('a', 'A');
    expect(registry.list()).toEqual(['A', 'b1']);
    expect(registry.get('a')).toBe('A');
    expect(registry.coveredBy('a')).toBe('A');
    expect(registry.all()).toEqual([
      { name: 'a', item: 'A', enabled: true },
      { name: 'b', item: 'b1', enabled: true },
    ]);
    registry.disable('a');
    expect(registry.get('a')).toBeUndefined();
    registry.enable('a');
    registry.remove('a');
    expect(registry.get('a')).toBeUndefined();
    expect(registry.list()).toEqual(['b1']);
    registry.add('a', 'a2', 'test');
    expect(registry.list()).toEqual(['b1', 'A']);
    // Hidden by a later cover, the item is kept for what is made from it.
    registry.hide('a');
    expect(registry.list()).toEqual(['b1']);
    expect(registry.coveredBy('a')).toBe('A');
  });

  it('show an item that follows a name only while that name, and what it follows, have registrations', () => {
    const registry = new Registry<string>('tool');
    registry.add('a', 'a1', 'test');
    registry.add('b', 'b1', 'test', 'a');
    registry.add('c', 'c1', 'test', 'b');
    registry.hide('a');
    expect(registry.list()).toEqual(['b1', 'c1']);
    registry.remove('a');
    expect(registry.list()).toEqual([]);
    expect(registry.get('c')).toBeUndefined();
    expect(registry.registered().map((e) => e.name)).toEqual(['b', 'c']);
    registry.add('a', 'a2', 'test');
    expect(registry.list()).toEqual(['b1', 'c1']);
  });

  it('bump the revision and tell listeners', async () => {
    const registry = new Registry<string>('tool');
    registry.add('a', 'a1', 'test');
    let heard = 0;
    registry.onChange(() => heard++);
    const before = registry.revision;
    registry.hide('a');
    await Promise.resolve();
    expect(registry.revision).toBeGreaterThan(before);
    expect(heard).toBe(1);
  });
});
