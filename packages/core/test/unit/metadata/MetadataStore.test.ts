import 'reflect-metadata';
import { Description, Tool } from '../../../src/decorators';
import { MetadataStore, metadataStore } from '../../../src/metadata';

class Base {
  @Description('inherited') a!: string;
}
class Child extends Base {
  @Description('own') b!: string;
}

describe('MetadataStore', () => {
  it('finds tools declared on a provider and on the classes it extends', () => {
    class Parent {
      @Tool() up(): string {
        return '';
      }
    }
    class Kid extends Parent {
      @Tool() down(): string {
        return '';
      }
    }
    expect(metadataStore.definitionsOf(Kid, 'tool').map((d) => d.methodName)).toEqual(['up', 'down']);
    expect(metadataStore.definitionsOf(Parent, 'tool').map((d) => d.methodName)).toEqual(['up']);
  });

  it('looks descriptions up the class chain and lists a class\'s own', () => {
    expect(metadataStore.descriptionOf(Child, 'a')).toBe('inherited');
    expect(metadataStore.descriptionOf(Child, 'b')).toBe('own');
    expect(metadataStore.descriptionOf(Base, 'b')).toBeUndefined();
    expect(metadataStore.describedPropertiesOf(Child)).toEqual(['b']);
  });

  it('clear() forgets providers but keeps DTO descriptions', () => {
    const store = new MetadataStore();
    class P {}
    store.add({ kind: 'tool', target: P, methodName: 'm', options: {}, paramTypes: [] });
    store.addDescription({ target: Child, propertyName: 'b', description: 'x' });
    store.clear();
    expect(store.definitionsOf(P, 'tool')).toEqual([]);
    expect(store.descriptionOf(Child, 'b')).toBe('x');
  });
});
