import { InvalidParamsError } from '../../../src/errors';
import { Paginator } from '../../../src/runtime/Paginator';
import { Registry } from '../../../src/runtime/Registry';

function registryOf(count: number): Registry<string> {
  const registry = new Registry<string>('item');
  for (let i = 0; i < count; i++) registry.add(`i${i}`, `i${i}`, 'test');
  return registry;
}

describe('Paginator', () => {
  it('pages in registration order and ends without a cursor', () => {
    const pages = new Paginator('items', registryOf(5), 2);
    const first = pages.page(undefined);
    expect(first.items).toEqual(['i0', 'i1']);
    const second = pages.page(first.nextCursor);
    expect(second.items).toEqual(['i2', 'i3']);
    const last = pages.page(second.nextCursor);
    expect(last).toEqual({ items: ['i4'] });
  });

  it('caches pages until the registry changes', () => {
    const registry = registryOf(5);
    const pages = new Paginator('items', registry, 2);
    const first = pages.page(undefined);
    expect(pages.page(undefined)).toBe(first);
    registry.disable('i0');
    const changed = pages.page(undefined);
    expect(changed).not.toBe(first);
    expect(changed.items).toEqual(['i1', 'i2']);
  });

  it('keeps a cursor meaningful across removals and additions', () => {
    const registry = registryOf(4);
    const pages = new Paginator('items', registry, 2);
    const first = pages.page(undefined);
    registry.remove('i1'); // the cursor's own item
    registry.remove('i2');
    registry.add('new', 'new', 'test');
    expect(pages.page(first.nextCursor).items).toEqual(['i3', 'new']);
  });

  it.each([['not base64!'], [''], [42], [null], [Buffer.from('other:1').toString('base64url')], [Buffer.from('items:99').toString('base64url')], [Buffer.from('items:01').toString('base64url')], [Buffer.from('items:-1').toString('base64url')]])(
    'refuses the cursor %p with -32602',
    (cursor) => {
      const pages = new Paginator('items', registryOf(3), 2);
      expect(() => pages.page(cursor)).toThrow(InvalidParamsError);
      expect(() => pages.page(cursor)).toThrow(/Invalid cursor for items/);
    },
  );

  it('sends everything at once when paging is off', () => {
    expect(new Paginator('items', registryOf(250), false).page(undefined).items).toHaveLength(250);
  });
});
