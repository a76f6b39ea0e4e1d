import type { Documents } from './refs';
import { isObject } from './schema';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Header parameters OpenAPI says to ignore: the call sets them itself. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** A value of the document and the URL of the document it is in: where its refs resolve. */
export interface Located<T = Record<string, unknown>> {
  readonly value: T;
  readonly url: string;
}

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly source: Located;
}

/** One operation of the document, its refs followed (schemas aside). */
export interface Operation {
  /** Upper case: `GET`. */
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  readonly tags: readonly string[];
  readonly source: Located;
  readonly parameters: readonly Parameter[];
  readonly requestBody?: Located;
  /** By status code (`200`, `2XX`, `default`). */
  readonly responses: ReadonlyMap<string, Located>;
  /** The operation's security requirements, else the document's. */
  readonly security?: unknown;
}

/** `GET /pets/{petId}`: how messages name an operation. */
export function labelOf(operation: { method: string; path: string }): string {
  return `${operation.method} ${operation.path}`;
}

/** The operations of the document, in document order; one that cannot be read is reported and left out. */
export function listOperations(documents: Documents, root: Record<string, unknown>, rootUrl: string, skip: (label: string, why: string) => void): Operation[] {
  const operations: Operation[] = [];
  const paths = isObject(root.paths) ? root.paths : {};
  for (const path of Object.keys(paths)) {
    let item: Located;
    try {
      item = located(documents.deref(paths[path], rootUrl));
    } catch (error) {
      skip(`* ${path}`, (error as Error).message);
      continue;
    }
    for (const key of Object.keys(item.value)) {
      if (!METHODS.includes(key) || !isObject(item.value[key])) continue;
      const method = key.toUpperCase();
      try {
        operations.push(readOperation(documents, root, item, method, path));
      } catch (error) {
        skip(labelOf({ method, path }), (error as Error).message);
      }
    }
  }
  return operations;
}

function readOperation(documents: Documents, root: Record<string, unknown>, item: Located, method: string, path: string): Operation {
  const operation = item.value[method.toLowerCase()] as Record<string, unknown>;
  const source: Located = { value: operation, url: item.url };
  const byKey = new Map<string, Parameter>();
  for (const list of [item.value.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const parameter = readParameter(documents.deref(entry, item.url));
      if (parameter) byKey.set(`${parameter.in}\u0000${parameter.name}`, parameter); // the operation's replace the path's
    }
  }
  const parameters = [...byKey.values()];
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (!parameters.some((p) => p.in === 'path' && p.name === name)) throw new Error(`the path has {${name}}, which no path parameter describes`);
  }
  const body = operation.requestBody === undefined ? undefined : located(documents.deref(operation.requestBody, item.url));
  const responses = new Map<string, Located>();
  if (isObject(operation.responses)) {
    for (const status of Object.keys(operation.responses)) responses.set(status, located(documents.deref(operation.responses[status], item.url)));
  }
  return {
    method,
    path,
    operationId: typeof operation.operationId === 'string' && operation.operationId !== '' ? operation.operationId : undefined,
    tags: Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    source,
    parameters,
    requestBody: body,
    responses,
    security: operation.security ?? root.security,
  };
}

function readParameter({ value, url }: { value: unknown; url: string }): Parameter | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || value.name === '') throw new Error('a parameter has no name');
  const where = value.in;
  if (where !== 'path' && where !== 'query' && where !== 'header' && where !== 'cookie') throw new Error(`the parameter "${value.name}" is in ${JSON.stringify(where)}, not path, query, header or cookie`);
  if (where === 'header' && IGNORED_HEADERS.has(value.name.toLowerCase())) return undefined;
  return { name: value.name, in: where, required: where === 'path' || value.required === true, source: { value, url } };
}

function located({ value, url }: { value: unknown; url: string }): Located {
  if (!isObject(value)) throw new Error(`expected an object, found ${JSON.stringify(value)?.slice(0, 40)}`);
  return { value, url };
}
