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

/** What rules match an operation by: known before its refs are read. */
export interface OperationHead {
  /** Upper case: `GET`. */
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  readonly tags: readonly string[];
  readonly source: Located;
  /** The path item holding it. */
  readonly item: Located;
}

/** One operation of the document, its refs followed (schemas aside). */
export interface Operation extends OperationHead {
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

/**
 * The operations of the document, in document order, from path items whose refs were read
 * (Documents.reachChain); a path item that cannot be read is reported and left out.
 */
export function listOperations(documents: Documents, root: Record<string, unknown>, rootUrl: string, skip: (label: string, why: string) => void): OperationHead[] {
  const operations: OperationHead[] = [];
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
      const operation = item.value[key];
      if (!METHODS.includes(key) || !isObject(operation)) continue;
      operations.push({
        method: key.toUpperCase(),
        path,
        operationId: typeof operation.operationId === 'string' && operation.operationId !== '' ? operation.operationId : undefined,
        tags: Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string') : [],
        source: { value: operation, url: item.url },
        item,
      });
    }
  }
  return operations;
}

/**
 * Reads the documents an operation's refs name: its parameters (the path item's too), body
 * and responses with their schemas, and the security schemes it requires; not its callbacks
 * or links, which are not served.
 */
export async function reachOperation(documents: Documents, root: Record<string, unknown>, rootUrl: string, head: OperationHead): Promise<void> {
  await documents.reach(head.item.value.parameters, head.item.url);
  await documents.reach(head.source.value, head.source.url);
  const security = head.source.value.security ?? root.security;
  const schemes = isObject(root.components) && isObject(root.components.securitySchemes) ? root.components.securitySchemes : {};
  if (!Array.isArray(security)) return;
  for (const alternative of security) {
    if (!isObject(alternative)) continue;
    for (const name of Object.keys(alternative)) if (Object.prototype.hasOwnProperty.call(schemes, name)) await documents.reach(schemes[name], rootUrl);
  }
}

/** The operation with its parameters, body and responses: their refs read first (reachOperation). */
export function readOperation(documents: Documents, root: Record<string, unknown>, head: OperationHead): Operation {
  const { item, source } = head;
  const operation = source.value;
  const byKey = new Map<string, Parameter>();
  for (const list of [item.value.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const parameter = readParameter(documents.deref(entry, item.url));
      if (parameter) byKey.set(`${parameter.in}\u0000${parameter.name}`, parameter); // the operation's replace the path's
    }
  }
  const parameters = [...byKey.values()];
  for (const [, name] of head.path.matchAll(/\{([^}]+)\}/g)) {
    if (!parameters.some((p) => p.in === 'path' && p.name === name)) throw new Error(`the path has {${name}}, which no path parameter describes`);
  }
  const body = operation.requestBody === undefined ? undefined : located(documents.deref(operation.requestBody, item.url));
  const responses = new Map<string, Located>();
  if (isObject(operation.responses)) {
    for (const status of Object.keys(operation.responses)) responses.set(status, located(documents.deref(operation.responses[status], item.url)));
  }
  return { ...head, parameters, requestBody: body, responses, security: operation.security ?? root.security };
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
