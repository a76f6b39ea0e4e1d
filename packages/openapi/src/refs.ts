import type { DocumentReader } from './load';
import { readFailure } from './load';

/** What a `$ref` leads to: the value, the document it is in (its refs resolve there) and a key naming it. */
export interface RefTarget {
  readonly value: unknown;
  /** The URL of the document holding the value, without fragment. */
  readonly url: string;
  /** `<document url>#<pointer>`: the same for every ref that leads here. */
  readonly key: string;
}

/** A `$ref` that leads nowhere. */
export class RefError extends Error {}

/** Keys whose values are data, not OpenAPI: a `$ref` inside them is not one. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);
/** Keys whose values map names to objects: a property or response named `default` is not data. */
const NAME_MAPS = new Set(['properties', 'patternProperties', 'responses', 'schemas', '$defs', 'dependentSchemas']);
/** Keys of what the server does not serve (callbacks, links): their refs are not read. */
const UNSERVED_KEYS = new Set(['callbacks', 'links']);

/**
 * The documents of an OpenAPI description: the root, and what its `$ref`s name, each read
 * when a part that is served uses it (`reach`), so that resolving is synchronous after that.
 * A ref in an excluded operation, or in a component nothing uses, is never read.
 */
export class Documents {
  private readonly byUrl = new Map<string, unknown>();
  /** The keys of the ref targets whose refs were reached. */
  private readonly reached = new Set<string>();

  constructor(
    root: unknown,
    rootUrl: string,
    private readonly read: DocumentReader,
  ) {
    this.byUrl.set(rootUrl, root);
  }

  /**
   * Reads the documents the refs in `node` (a value of the document at `base`) name, and those
   * their targets' refs name, and so on; data values (examples, defaults) aside. Rejects with a
   * DefinitionError naming the ref when a document cannot be read; a ref that leads nowhere is
   * left for `resolve` to report.
   */
  async reach(node: unknown, base: string): Promise<void> {
    // Each node with the URL of its document and whether its keys are names (then none of them is data).
    const stack: Array<[unknown, string, boolean]> = [[node, base, false]];
    while (stack.length > 0) {
      const [value, url, names] = stack.pop()!;
      if (typeof value !== 'object' || value === null) continue;
      if (Array.isArray(value)) {
        for (const item of value) if (typeof item === 'object' && item !== null) stack.push([item, url, false]);
        continue;
      }
      for (const key in value) {
        const child = (value as Record<string, unknown>)[key];
        if (key === '$ref' && !names) {
          if (typeof child !== 'string') continue;
          const reading = this.readFor(child, url);
          if (reading) await reading;
          const target = this.tryResolve(child, url);
          if (target && !this.reached.has(target.key)) {
            this.reached.add(target.key);
            stack.push([target.value, target.url, false]);
          }
        } else if (typeof child === 'object' && child !== null && (names || (!DATA_KEYS.has(key) && !UNSERVED_KEYS.has(key)))) {
          stack.push([child, url, !names && NAME_MAPS.has(key)]);
        }
      }
    }
  }

  /** Reads the documents along a chain of refs (`node` a ref to a ref to … a value), not what the value's refs name. */
  async reachChain(node: unknown, base: string): Promise<void> {
    let value = node;
    let url = base;
    for (let hops = 0; isRef(value) && hops < 32; hops++) {
      await this.readFor(value.$ref, url);
      const target = this.tryResolve(value.$ref, url);
      if (!target) return;
      value = target.value;
      url = target.url;
    }
  }

  /** Reads the document `ref` names from `base` unless it was read: a promise only then (most refs are local). */
  private readFor(ref: string, base: string): Promise<void> | undefined {
    const url = documentOf(ref, base);
    return url === undefined || this.byUrl.has(url) ? undefined : this.load(url, ref, base);
  }

  /** The ref's target; undefined when it leads nowhere (resolve says why, when the operation is read). */
  private tryResolve(ref: string, base: string): RefTarget | undefined {
    try {
      return this.resolve(ref, base);
    } catch {
      return undefined;
    }
  }

  private async load(url: string, ref: string, base: string): Promise<void> {
    let document: unknown;
    try {
      document = await this.read(url, base);
    } catch (error) {
      throw readFailure(error, url, { ref, from: base });
    }
    this.byUrl.set(url, document);
  }

  /** The value `ref` names, seen from the document at `base`. */
  resolve(ref: string, base: string): RefTarget {
    const full = ref.startsWith('#') ? base + ref : absolute(ref, base);
    const hash = full.indexOf('#');
    const url = hash < 0 ? full : full.slice(0, hash);
    const pointer = hash < 0 ? '' : full.slice(hash + 1);
    const document = this.byUrl.get(url);
    if (document === undefined) throw new RefError(`$ref "${ref}" names ${url}, which was not read`);
    const value = followPointer(document, pointer);
    if (value === undefined) throw new RefError(`$ref "${ref}" (in ${base}) points at nothing`);
    return { value, url, key: `${url}#${pointer}` };
  }

  /** Follows `$ref`s until a value that is not one (for parameters, bodies, responses, path items). */
  deref(node: unknown, base: string): { value: unknown; url: string } {
    let value = node;
    let url = base;
    for (let hops = 0; isRef(value); hops++) {
      if (hops === 32) throw new RefError(`$ref "${value.$ref}" leads round in a circle`);
      const target = this.resolve(value.$ref, url);
      value = target.value;
      url = target.url;
    }
    return { value, url };
  }
}

export function isRef(value: unknown): value is { $ref: string } {
  return typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';
}

function absolute(ref: string, base: string): string {
  try {
    return new URL(ref, base).href;
  } catch {
    throw new RefError(`$ref "${ref}" (in ${base}) is not a valid URL reference`);
  }
}

/** The URL of the document `ref` names from `base`, without fragment; undefined for no valid URL. */
function documentOf(ref: string, base: string): string | undefined {
  if (ref.startsWith('#')) return base;
  try {
    return withoutFragment(absolute(ref, base));
  } catch {
    return undefined;
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

/** RFC 6901, in a URI fragment (percent-encoded). Plain-name fragments (`#anchor`) are not supported. */
function followPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) throw new RefError(`the fragment "#${pointer}" is not a JSON pointer (anchors are not supported)`);
  let node = document;
  for (const raw of pointer.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      segment = raw;
    }
    segment = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.prototype.hasOwnProperty.call(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
