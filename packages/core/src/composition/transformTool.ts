import { DefinitionError, InvalidParamsError } from '../errors';
import { perRevision } from '../items/describe';
import { headerParamsOf } from '../items/headerParams';
import { callChecked, runGuarded, TOOL_NAME } from '../items/ToolItem';
import type { CallToolResult, FailureHost, ToolItem } from '../items/ToolItem';
import type { Context } from '../runtime/Context';
import type { Registry } from '../runtime/Registry';
import type { JsonSchema } from '../schema';
import { checkSchema, compileAuthoredSchema } from '../validation';
import type { DtoValidator } from '../validation';

/** How one argument of a tool is shown to clients (`ToolTransform.arguments`). */
export interface ArgumentTransform {
  /** The name clients use; the tool still receives its own. */
  name?: string;
  /** The description clients see. */
  description?: string;
  /** Clients do not see it; it takes its `default` (needed when the tool requires it). */
  hide?: boolean;
  /**
   * The value when the client leaves the argument out: a value, or a function of the request's
   * Context computing it per call (the caller's principal, say). Shown in the schema when a value.
   */
  default?: unknown;
}

/** Options of `server.transformTool`. */
export interface ToolTransform {
  /** The new tool's name (default: the tool's own, which it then replaces). */
  name?: string;
  description?: string;
  title?: string;
  /** Per argument of the tool, by its own name. */
  arguments?: Record<string, ArgumentTransform>;
  /**
   * Runs around the call: gets the arguments as the tool takes them and `call`, which runs the
   * tool (its own validation, its method); returns the result the client gets.
   */
  wrap?: (args: Record<string, unknown>, call: (args: Record<string, unknown>) => Promise<CallToolResult>, ctx: Context) => CallToolResult | Promise<CallToolResult>;
  /** Keep the original tool listed and callable too (default: a tool under a new name hides it). */
  keepOriginal?: boolean;
}


/**
 * Adds a tool made from `name` (a local, mounted or remote tool): clients see its new name,
 * description and arguments and are validated against that schema; the original's own
 * validation still checks what reaches it. Unless kept, the original is covered in the
 * registry: neither listed nor callable, whatever its source registers under its name later.
 */
export function transformTool(
  host: FailureHost,
  tools: Registry<ToolItem>,
  name: string,
  transform: ToolTransform,
  /** Throws when the server may not take `name` (tool search's names, a clash where it is mounted). */
  checkName: (name: string, where: string) => void,
): ToolItem {
  const where = `server.transformTool("${name}")`;
  // A tool already transformed under its own name is transformed again from that transform (listed
  // or since hidden by a rename), so what the first transform hides stays hidden.
  const stacked = tools.coveredBy(name);
  const original = stacked ?? tools.itemNamed(name);
  if (!original) throw new DefinitionError('INVALID_OPTION', `${where}: no tool is named "${name}"`);
  const newName = transform.name ?? name;
  if (!TOOL_NAME.test(newName)) throw new DefinitionError('INVALID_OPTION', `${where}: name must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" or ".", not ${JSON.stringify(newName)}`);
  if (newName !== name && tools.has(newName)) throw new DefinitionError('DUPLICATE_NAME', `${where}: a tool named "${newName}" is already registered`);
  if (newName !== name) checkName(newName, where);
  const { schema, toOriginal } = exposedArguments(original.inputSchema, transform.arguments ?? {}, where);
  checkSchema(schema);
  const check = compileAuthoredSchema(schema);
  const wrap = transform.wrap;
  if (wrap !== undefined && typeof wrap !== 'function') throw new DefinitionError('INVALID_OPTION', `${where}: wrap must be a function`);

  // The tool as it is registered now: a mounted or remote source may have replaced it since.
  const source = (): ToolItem | undefined => stacked ?? tools.itemNamed(name);
  const call = (args: Record<string, unknown>, ctx: Context) => {
    const current = source();
    if (!current) return Promise.reject(new InvalidParamsError(`Unknown tool: ${newName} (the tool "${name}" it is made from is no longer served)`));
    return Promise.resolve(current.call(args, ctx));
  };
  const rename = (listing: Record<string, unknown>): Record<string, unknown> => {
    const shown: Record<string, unknown> = { ...listing, name: newName, inputSchema: schema };
    if (transform.description !== undefined) shown.description = transform.description;
    if (transform.title !== undefined) shown.title = transform.title;
    return shown;
  };
  const validator: DtoValidator<unknown> = {
    validate: (args) => {
      const errors = check(args);
      return errors.length === 0 ? { ok: true, value: args } : { ok: false, errors };
    },
  };
  // Runs the source with the arguments as it takes them, inside `wrap` when there is one.
  const run = (input: unknown, ctx: Context) =>
    runGuarded(newName, host, ctx, () => {
      const args = toOriginal((input ?? {}) as Record<string, unknown>, ctx);
      return wrap ? wrap(args, (given) => call(given, ctx), ctx) : call(args, ctx);
    });
  const made: ToolItem = {
    name: newName,
    // Access rules and middleware targets are the source's as it is now (a remote item's rules go with the item they were defined for).
    get target() {
      return source()?.target ?? original.target;
    },
    inputSchema: schema,
    annotations: original.annotations,
    // Mirrored headers (2026-07-28 `x-mcp-header`) name the arguments as clients send them.
    headerParams: headerParamsOf(schema, where),
    taskSupport: original.taskSupport,
    taskStart: original.taskStart,
    ui: original.ui,
    listing: perRevision((revision) => rename(original.listing(revision))),
    plainListing: perRevision((revision) => rename(original.plainListing(revision))),
    call: (args, ctx) => callChecked(newName, validator, args, ctx, run),
  };
  if (newName === name) {
    tools.cover(name, made);
  } else {
    // Listed while its source has a registration: without one, it has no access rules to go by.
    tools.add(newName, made, where, name);
    if (!transform.keepOriginal) tools.hide(name);
  }
  return made;
}

/** The schema clients see, and the mapping of what they send back to the tool's own arguments. */
function exposedArguments(
  original: JsonSchema,
  transforms: Record<string, ArgumentTransform>,
  where: string,
): { schema: JsonSchema; toOriginal: (args: Record<string, unknown>, ctx: Context) => Record<string, unknown> } {
  const properties = (original.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((original.required as string[] | undefined) ?? []);
  const shownProperties: Record<string, JsonSchema> = {};
  const shownRequired: string[] = [];
  const renames = new Map<string, string>(); // shown name → own name
  const defaults: Array<[string, unknown]> = [];
  /** Arguments clients cannot set: their default always applies. */
  const forced = new Set<string>();
  for (const key of Object.keys(transforms)) {
    if (!(key in properties)) throw new DefinitionError('INVALID_OPTION', `${where}: the tool has no argument "${key}" (it has ${Object.keys(properties).join(', ') || 'none'})`);
  }
  for (const [own, property] of Object.entries(properties)) {
    const change = transforms[own] ?? {};
    const hasDefault = 'default' in change;
    if (hasDefault) defaults.push([own, change.default]);
    if (change.hide) {
      if (required.has(own) && !hasDefault) throw new DefinitionError('INVALID_OPTION', `${where}: argument "${own}" is required: a hidden one needs a default`);
      forced.add(own);
      continue;
    }
    const shown = change.name ?? own;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(shown)) throw new DefinitionError('INVALID_OPTION', `${where}: argument name ${JSON.stringify(shown)} must be 1-64 characters of A-Z, a-z, 0-9, "_", "-" or "."`);
    if (shown in shownProperties) throw new DefinitionError('DUPLICATE_NAME', `${where}: two arguments would be named "${shown}"`);
    const next: JsonSchema = { ...property };
    if (change.description !== undefined) next.description = change.description;
    if (hasDefault && typeof change.default !== 'function') next.default = change.default as JsonSchema['default'];
    shownProperties[shown] = next;
    renames.set(shown, own);
    if (required.has(own) && !hasDefault) shownRequired.push(shown);
  }
  // Only the arguments shown: a client cannot reach a hidden one, or one by its old name.
  const schema: JsonSchema = { ...original, properties: shownProperties, additionalProperties: false };
  if (shownRequired.length > 0) schema.required = shownRequired;
  else delete schema.required;
  const toOriginal = (args: Record<string, unknown>, ctx: Context): Record<string, unknown> => {
    const own: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) {
      const target = renames.get(key);
      if (target !== undefined) own[target] = value;
    }
    for (const [key, value] of defaults) {
      if (own[key] === undefined || forced.has(key)) own[key] = typeof value === 'function' ? (value as (ctx: Context) => unknown)(ctx) : value;
    }
    return own;
  };
  return { schema, toOriginal };
}
