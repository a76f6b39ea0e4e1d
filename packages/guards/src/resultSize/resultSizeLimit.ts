import { DefinitionError, InternalError } from '@typemcp/core';
import type { Interceptor, Plugin, ServedItem } from '@typemcp/core';
import { declareGuard, itemSettings } from '../items';
import type { PerItem } from '../items';
import { jsonBytesBound, utf8Bytes } from './measure';
import { truncateToolResult } from './truncate';

const KEY = 'guards:result-size';

/** The limit of one item's results. */
export interface ResultSizeSettings {
  /** The most UTF-8 bytes the result's JSON may take. */
  readonly maxBytes: number;
  /** Tools only: cut the text content to fit (see the reference) instead of answering a tool error. */
  readonly truncate?: boolean;
}

/**
 * Options of `resultSizeLimit`: a limit for every tool, resource and prompt (`maxBytes`), and
 * limits of their own for some (`tools` by name, `resources` by uri or template, `prompts` by
 * name), which win over `@MaxResultSize`, which wins over `maxBytes`.
 */
export interface ResultSizeOptions extends PerItem<ResultSizeSettings> {
  /** The limit of every item without one of its own; no limit when left out. */
  readonly maxBytes?: number;
  /** Whether `maxBytes` truncates tool results (default false: a tool error). */
  readonly truncate?: boolean;
}

/**
 * Limits the size of a method's results as the client would receive them: a tool's result over
 * its limit becomes a tool error naming the tool, the size and the limit (or, with `truncate`,
 * its text content is cut to fit); a resource or prompt over its limit is answered with a
 * JSON-RPC error (-32603, `data: { size, limit }`). Applies to `tools/call`, `resources/read`
 * and `prompts/get`.
 */
export const resultSizeLimit: Plugin<ResultSizeOptions> = {
  name: KEY,
  register(host, options) {
    const checked = checkOptions(options ?? {});
    const fallback: ResultSizeSettings | undefined = checked.maxBytes === undefined ? undefined : { maxBytes: checked.maxBytes, truncate: checked.truncate === true };
    // An interceptor: a synchronous handler's result is measured and answered synchronously.
    const limitSize: Interceptor = (ctx, next) => {
      const found = itemSettings<ResultSizeSettings>(host, KEY, checked, ctx.method, ctx.params);
      const settings = found?.settings ?? (found === undefined ? undefined : fallback);
      if (settings === undefined) return next();
      const result = next();
      const item = found!.item;
      return result instanceof Promise ? result.then((value) => limited(item, settings, value)) : limited(item, settings, result);
    };
    host.intercept(limitSize);
  },
};

/** Declares the limit of this method's results (bytes of JSON); plugin options for the same item win. */
export function MaxResultSize(maxBytes: number, options: { truncate?: boolean } = {}): MethodDecorator {
  checkBytes(maxBytes, '@MaxResultSize(maxBytes)');
  if (options.truncate !== undefined && typeof options.truncate !== 'boolean') throw new TypeError('@MaxResultSize: truncate must be true or false');
  return declareGuard(KEY, { maxBytes, truncate: options.truncate === true } satisfies ResultSizeSettings);
}

function limited(item: ServedItem, settings: ResultSizeSettings, result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const limit = settings.maxBytes;
  // Most results are far within their limit: a bound found without writing JSON tells so.
  if (jsonBytesBound(result, limit) <= limit) return result;
  const json = JSON.stringify(result);
  if (json === undefined) return result;
  // A UTF-16 unit takes at most 3 UTF-8 bytes (a pair of them 4): a short JSON needs no exact count.
  if (json.length * 3 <= limit) return result;
  const size = utf8Bytes(json);
  if (size <= limit) return result;
  if (item.kind !== 'tool') {
    throw new InternalError(`The result of ${item.kind} "${item.name}" is ${size} bytes, over the limit of ${limit} bytes`, { size, limit });
  }
  if (settings.truncate) {
    const cut = truncateToolResult(result as Record<string, unknown>, size, limit);
    if (cut !== undefined) return cut;
  }
  return {
    content: [{ type: 'text', text: `The result of tool "${item.name}" is ${size} bytes, over the limit of ${limit} bytes` }],
    isError: true,
  };
}

function checkOptions(options: ResultSizeOptions): ResultSizeOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError('resultSizeLimit: options must be an object');
  for (const key of Object.keys(options)) {
    if (!['maxBytes', 'truncate', 'tools', 'resources', 'prompts'].includes(key)) throw new TypeError(`resultSizeLimit: unknown option "${key}" (known: maxBytes, truncate, tools, resources, prompts)`);
  }
  if (options.maxBytes !== undefined) checkBytes(options.maxBytes, 'resultSizeLimit: maxBytes');
  if (options.truncate !== undefined && typeof options.truncate !== 'boolean') throw new TypeError('resultSizeLimit: truncate must be true or false');
  for (const kind of ['tools', 'resources', 'prompts'] as const) {
    const byName = options[kind];
    if (byName === undefined) continue;
    if (typeof byName !== 'object' || byName === null || Array.isArray(byName)) throw new TypeError(`resultSizeLimit: ${kind} must be an object of limits by name`);
    for (const [name, settings] of Object.entries(byName)) {
      const where = `resultSizeLimit: ${kind}[${JSON.stringify(name)}]`;
      if (typeof settings !== 'object' || settings === null) throw new TypeError(`${where} must be { maxBytes, truncate? }`);
      checkBytes(settings.maxBytes, `${where}.maxBytes`);
      if (settings.truncate !== undefined && typeof settings.truncate !== 'boolean') throw new TypeError(`${where}.truncate must be true or false`);
      if (settings.truncate === true && kind !== 'tools') {
        throw new DefinitionError('INVALID_OPTION', `${where}.truncate: only tool results can be truncated; a ${kind.slice(0, -1)} over its limit is an error`);
      }
    }
  }
  return options;
}

function checkBytes(value: unknown, where: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${where} must be a positive whole number of bytes, not ${String(value)}`);
}
