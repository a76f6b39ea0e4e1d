import type { DocumentReader } from './load';

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

/** Every document of an OpenAPI description: the root and what its `$ref`s load, loaded up front so that resolving is synchronous. */
export class Documents {
  private readonly byUrl = new Map<string, unknown>();

  private constructor(private readonly read: DocumentReader) {}

  static async open(root: unknown, rootUrl: string, read: DocumentReader): Promise<Documents> {
    const documents = new Documents(read);
    documents.byUrl.set(rootUrl, root);
    await documents.loadReferenced(root, rootUrl);
    return documents;
  }

  /** Loads the documents `document`'s external refs name, and theirs. */
  private async loadReferenced(document: unknown, url: string): Promise<void> {
    const wanted = new Set<string>();
    forEachRef(document, (ref) => {
      if (ref.startsWith('#')) return;
      const target = withoutFragment(absolute(ref, url));
      if (!this.byUrl.has(target)) wanted.add(target);
    });
    for (const target of wanted) {
      if (this.byUrl.has(target)) continue;
      this.byUrl.set(target, undefined); // a cycle between files loads each once
      const loaded = await this.read(target);
      this.byUrl.set(target, loaded);
      await this.loadReferenced(loaded, target);
    }
  }

  /** The value `ref` names, seen from the document at `base`. */
  resolve(ref: string, base: string): RefTarget {
    const full = ref.startsWith('#') ? base + ref : absolute(ref, base);
    const hash = full.indexOf('#');
    const url = hash < 0 ? full : full.slice(0, hash);
    const pointer = hash < 0 ? '' : full.slice(hash + 1);
    const document = this.byUrl.get(url);
    if (document === undefined) throw new RefError(`$ref "${ref}" names ${url}, which was not loaded`);
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

/** Calls `visit` with every `$ref` string of a document, data values aside. */
function forEachRef(document: unknown, visit: (ref: string) => void): void {
  // Each node with whether its keys are names (then none of them is data).
  const stack: Array<[unknown, boolean]> = [[document, false]];
  while (stack.length > 0) {
    const [node, names] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) stack.push([item, false]);
      continue;
    }
    for (const key in node) {
      const value = (node as Record<string, unknown>)[key];
      if (key === '$ref' && !names) {
        if (typeof value === 'string') visit(value);
      } else if (typeof value === 'object' && value !== null && (names || !DATA_KEYS.has(key))) {
        stack.push([value, !names && NAME_MAPS.has(key)]);
      }
    }
  }
}
