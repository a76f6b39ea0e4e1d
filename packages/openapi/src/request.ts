import { ToolError } from '@typemcp/core';
import type { Binding, InputPlan } from './input';
import { BODY } from './input';
import type { Operation } from './operations';
import { isObject } from './schema';

/** One HTTP request, ready for fetch. */
export interface HttpRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string | URLSearchParams | FormData;
}

/**
 * The request for these (validated) arguments: path parameters expanded and percent-encoded,
 * query parameters serialized as their `style` says (form by default: arrays as repeated keys,
 * objects as one key per property), header and cookie parameters, and the body.
 */
export function buildRequest(baseUrl: string, operation: Operation, input: InputPlan, args: Record<string, unknown>, accept: string): HttpRequest {
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept };
  const cookies: string[] = [];
  let path = operation.path;
  const expanded: Array<{ name: string; value: unknown }> = [];
  for (const binding of input.bindings) {
    const value = args[binding.property];
    if (value === undefined) continue;
    const { name } = binding.parameter;
    const shaped = binding.json ? JSON.stringify(value) : value;
    switch (binding.parameter.in) {
      case 'path':
        path = path.split(`{${name}}`).join(pathValue(binding, shaped));
        expanded.push({ name, value });
        break;
      case 'query':
        addQuery(query, binding, shaped);
        break;
      case 'header':
        headers[name] = simple(shaped, binding.explode);
        break;
      case 'cookie':
        cookies.push(`${name}=${encodeURIComponent(simple(shaped, binding.explode))}`);
        break;
    }
  }
  const missing = /\{([^}]+)\}/.exec(path);
  if (missing) throw new ToolError(`give the path parameter "${missing[1]}"`);
  checkSegments(operation.path, path, expanded);
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  const search = query.toString();
  const url = `${baseUrl.replace(/\/+$/, '')}${path}${search === '' ? '' : `?${search}`}`;
  const request: HttpRequest = { url, method: operation.method, headers };
  const body = args[BODY];
  if (!input.body || body === undefined) return request;
  headers['content-type'] = input.body.mediaType;
  switch (input.body.kind) {
    case 'json':
      return { ...request, body: JSON.stringify(body) };
    case 'form':
      return { ...request, body: new URLSearchParams(formEntries(body)) };
    case 'multipart': {
      delete headers['content-type']; // fetch writes it, with the boundary
      const form = new FormData();
      for (const [key, value] of formEntries(body)) form.append(key, value);
      return { ...request, body: form };
    }
    default:
      return { ...request, body: typeof body === 'string' ? body : JSON.stringify(body) };
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** `simple` style: `a,b,c` for arrays, `k,v,k,v` (or `k=v,k=v` exploded) for objects. */
function simple(value: unknown, explode: boolean): string {
  if (Array.isArray(value)) return value.map(text).join(',');
  if (isObject(value)) return Object.entries(value).map(([k, v]) => (explode ? `${k}=${text(v)}` : `${k},${text(v)}`)).join(',');
  return text(value);
}

/** A path segment: `simple` (default), `label` (`.a.b`) or `matrix` (`;id=5`), percent-encoded. */
function pathValue(binding: Binding, value: unknown): string {
  const { name } = binding.parameter;
  const list = Array.isArray(value) ? value.map(text) : isObject(value) ? Object.entries(value).flatMap(([k, v]) => [k, text(v)]) : [text(value)];
  const encoded = list.map(encodeURIComponent);
  if (binding.style === 'label') return `.${encoded.join(binding.explode ? '.' : ',')}`;
  if (binding.style === 'matrix') return binding.explode && Array.isArray(value) ? encoded.map((v) => `;${name}=${v}`).join('') : `;${name}=${encoded.join(',')}`;
  return encoded.join(',');
}

/**
 * Each segment of the expanded path that a parameter wrote must leave the path as the
 * document wrote it: "." and ".." (however encoded: `%2e`) are steps for a URL parser
 * (`/items/..` would call `/`), and an empty segment calls another path (`/items/`). The
 * check is on the segment as sent, after the style's prefix and joining: a label-style
 * `['', '']` is `..` though no item is. Values are percent-encoded, so a parameter never adds
 * a `/`, `?` or `#`: the expanded path has the template's segments, one for one.
 */
function checkSegments(template: string, path: string, expanded: ReadonlyArray<{ name: string; value: unknown }>): void {
  const written = template.split('/');
  const sent = path.split('/');
  for (let i = 0; i < written.length; i++) {
    const names = [...written[i].matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    if (names.length === 0) continue;
    const segment = sent[i] ?? '';
    const decoded = segment.replace(/%2e/gi, '.');
    if (decoded !== '' && decoded !== '.' && decoded !== '..') continue;
    const name = names[0];
    if (decoded === '') throw new ToolError(`the path parameter "${name}" may not be empty: the request would go to another path`);
    const value = expanded.find((entry) => entry.name === name)?.value;
    throw new ToolError(`the path parameter "${name}" may not be "." or "..": as ${JSON.stringify(value)} it makes the path segment "${segment}", a step out of the path`);
  }
}

function addQuery(query: URLSearchParams, binding: Binding, value: unknown): void {
  const { name } = binding.parameter;
  const { style, explode } = binding;
  if (Array.isArray(value)) {
    const items = value.map(text);
    if (explode && style === 'form') for (const item of items) query.append(name, item);
    else query.append(name, items.join(style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ','));
  } else if (isObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (style === 'deepObject') for (const [key, item] of entries) query.append(`${name}[${key}]`, text(item));
    else if (explode) for (const [key, item] of entries) query.append(key, text(item));
    else query.append(name, entries.flatMap(([key, item]) => [key, text(item)]).join(','));
  } else {
    query.append(name, text(value));
  }
}

/** A form's fields: strings as they are, other values as JSON text. */
function formEntries(body: unknown): Array<[string, string]> {
  if (!isObject(body)) return [['value', text(body)]];
  const entries: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) entries.push([key, text(item)]);
    else entries.push([key, text(value)]);
  }
  return entries;
}
