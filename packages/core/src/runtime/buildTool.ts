import type { MountedItem } from './mounted';
import type { InvocationTarget } from './middleware';
import { headerParamsOf } from './headerParams';
import type { ToolHeaderParam } from './headerParams';
import { DefinitionError } from '../errors';
import type { Revision } from '../protocol';
import type { Constructor, TaskStart, TaskSupport, ToolDefinition, ToolUi } from '../metadata';
import { schemaForDto } from '../schema';
import type { JsonSchema } from '../schema';
import { checkSchema, compileAuthoredSchema, compileDtoValidator, lazySchemaValidator } from '../validation';
import type { DtoValidator, SchemaValidator } from '../validation';
import { Context } from './Context';
import { checkToolUi, toolUiMeta, withoutToolUi } from '../apps';
import { describeFor, perRevision } from './describe';
import { isDtoClass } from './dtoTypes';

/** Where each method parameter comes from. */
type ParameterSource = 'input' | 'context';

export interface RegisteredTool {
  readonly name: string;
  readonly provider: Constructor;
  readonly methodName: string;
  /** What `invoke` calls. */
  readonly target: InvocationTarget;
  readonly definition: ToolDefinition;
  readonly parameters: readonly ParameterSource[];
  readonly inputValidator: DtoValidator<unknown> | undefined;
  readonly outputValidator: SchemaValidator | undefined;
  /** Arguments mirrored in `Mcp-Param-*` headers of 2026-07-28 HTTP requests (`x-mcp-header`). */
  readonly headerParams: readonly ToolHeaderParam[];
  /** Whether the tool may run as a task (`@Tool({ task })`); `forbidden` by default. */
  readonly taskSupport: TaskSupport;
  /** When a call that becomes a task becomes one (`@Tool({ taskStart })`); `call` by default. */
  readonly taskStart: TaskStart;
  /** The `tools/list` entry as the given protocol version can carry it; cached per version. */
  listing(revision: Revision): Record<string, unknown>;
  /** MCP Apps: the tool's UI (`@Tool({ ui })`), if it has one. */
  readonly ui: ToolUi | undefined;
  /** The entry for a client that cannot show apps: without the UI in `_meta`; cached per version. */
  plainListing(revision: Revision): Record<string, unknown>;
  /** Set when the tool comes from a mounted server (`server.mount`). */
  readonly mounted?: MountedItem;
  /** The JSON Schema of the tool's arguments, as listed. */
  readonly inputSchema: JsonSchema;
  /** Set for a tool made from another (`server.transformTool`): runs it with the validated arguments. */
  readonly transformed?: (input: unknown, ctx: Context) => unknown;
  /** The name of the tool a transformed tool was made from (the registry covers it). */
  readonly transformedFrom?: string;
}

const EMPTY_INPUT_SCHEMA: JsonSchema = Object.freeze({ type: 'object', properties: {}, additionalProperties: false });
/** The tool names MCP allows: 1-128 of A-Z, a-z, 0-9, "_", "-", ".". */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Turns a `@Tool` definition into a runnable tool: schemas, validators, parameter plan. */
export function buildTool(definition: ToolDefinition, provider: Constructor): RegisteredTool {
  const { options, methodName } = definition;
  const where = `${provider.name}.${methodName}`;
  const name = options.name ?? methodName;
  if (!TOOL_NAME.test(name)) {
    throw new DefinitionError(
      'INVALID_OPTION',
      `${where}: tool name "${name}" must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" or "."; set @Tool({ name })`,
    );
  }
  const method = (provider.prototype as Record<string, unknown>)[methodName];
  if (typeof method !== 'function') {
    throw new DefinitionError('INVALID_OPTION', `${where}: @Tool must decorate a method`);
  }

  if (options.inputSchema && options.input) {
    throw new DefinitionError('INVALID_OPTION', `${where}: give either input (a DTO class) or inputSchema (a JSON Schema), not both`);
  }
  const { parameters, inputType } = options.inputSchema
    ? { parameters: planRawParameters(definition), inputType: undefined }
    : planParameters(definition, where, method.length);
  const inputSchema = options.inputSchema ?? (inputType ? schemaForDto(inputType) : EMPTY_INPUT_SCHEMA);
  const inputValidator = options.inputSchema ? rawValidator(options.inputSchema, where) : inputType ? compileDtoValidator(inputType) : undefined;
  const headerParams = headerParamsOf(inputSchema, where);
  const outputSchema = options.output ? schemaForDto(options.output) : undefined;
  const outputValidator = outputSchema ? lazySchemaValidator(outputSchema) : undefined;
  const taskSupport = options.task ?? 'forbidden';
  if (taskSupport !== 'forbidden' && taskSupport !== 'optional' && taskSupport !== 'required') {
    throw new DefinitionError('INVALID_OPTION', `${where}: task must be 'optional', 'required' or 'forbidden', not ${JSON.stringify(taskSupport)}`);
  }
  const taskStart = options.taskStart ?? 'call';
  if (taskStart !== 'call' && taskStart !== 'continueAsTask') {
    throw new DefinitionError('INVALID_OPTION', `${where}: taskStart must be 'call' or 'continueAsTask', not ${JSON.stringify(taskStart)}`);
  }
  if (options.taskStart !== undefined && taskSupport === 'forbidden') {
    throw new DefinitionError('INVALID_OPTION', `${where}: taskStart needs a tool that may run as a task: set task to 'optional' or 'required'`);
  }

  const ui = options.ui;
  if (ui !== undefined) checkToolUi(ui, `${where}: @Tool`);
  const listing = perRevision((revision) => {
    const entry = describeFor(revision, { name }, ui === undefined ? options : { ...options, _meta: toolUiMeta(ui, options._meta) });
    entry.inputSchema = inputSchema;
    if (revision.titlesAndStructuredOutput && outputSchema) entry.outputSchema = outputSchema;
    if (revision.toolAnnotations && options.annotations) entry.annotations = options.annotations;
    if (taskSupport !== 'forbidden' && revision.taskAugmentation) entry.execution = { taskSupport };
    return entry;
  });

  const target: InvocationTarget = { kind: 'tool', name, provider, methodName };
  const plainListing = ui === undefined ? listing : perRevision((revision) => withoutToolUi(listing(revision)));
  return { name, provider, methodName, target, definition, parameters, inputValidator, inputSchema, outputValidator, headerParams, taskSupport, taskStart, listing, ui, plainListing };
}

function planParameters(
  definition: ToolDefinition,
  where: string,
  declaredArity: number,
): { parameters: ParameterSource[]; inputType: Constructor | undefined } {
  const { paramTypes, options } = definition;
  if (!paramTypes) {
    if (options.input) return { parameters: ['input', 'context'], inputType: options.input };
    if (declaredArity === 0) return { parameters: [], inputType: undefined };
    throw new DefinitionError(
      'TOOL_INPUT_UNKNOWN',
      `${where}: cannot tell the input type of this @Tool because no decorator metadata was emitted. ` +
        `Compile with "emitDecoratorMetadata" (tsc or swc; esbuild and tsx do not emit it) ` +
        `or name the DTO class with @Tool({ input: YourInputDto }).`,
    );
  }

  const parameters: ParameterSource[] = [];
  let inputType: Constructor | undefined;
  for (const [index, type] of paramTypes.entries()) {
    if (type === Context) {
      parameters.push('context');
      continue;
    }
    if (parameters.includes('input')) {
      throw new DefinitionError(
        'INVALID_OPTION',
        `${where}: parameter ${index} is neither the input DTO nor Context; a tool method takes (input, ctx)`,
      );
    }
    const candidate = (options.input ?? type) as Constructor;
    if (!isDtoClass(candidate)) {
      throw new DefinitionError(
        'TOOL_INPUT_NOT_A_CLASS',
        `${where}: parameter ${index} is typed as ${describeType(type)}, which carries no schema. ` +
          `Declare the input as a class with class-validator decorators, or name it with @Tool({ input: YourInputDto }).`,
      );
    }
    parameters.push('input');
    inputType = candidate;
  }
  // The method may take no input parameter (only the Context): the arguments are still checked.
  if (!inputType && options.input) inputType = options.input;
  return { parameters, inputType };
}

/** With a hand-written schema, the first parameter that is not the Context takes the input. */
function planRawParameters(definition: ToolDefinition): ParameterSource[] {
  const types = definition.paramTypes;
  if (!types) return ['input', 'context'];
  return types.map((type): ParameterSource => (type === Context ? 'context' : 'input'));
}

/** Checks arguments against a hand-written JSON Schema; one that does not compile fails with a DefinitionError naming `where`. */
export function rawValidator(schema: JsonSchema, where: string): DtoValidator<unknown> {
  let check: SchemaValidator;
  try {
    checkSchema(schema);
    check = compileAuthoredSchema(schema);
  } catch (error) {
    if (error instanceof DefinitionError) throw error;
    throw new DefinitionError('INVALID_OPTION', `${where}: inputSchema does not compile as JSON Schema 2020-12: ${(error as Error).message}`);
  }
  return {
    validate: (args) => {
      const errors = check(args);
      return errors.length === 0 ? { ok: true, value: args } : { ok: false, errors };
    },
  };
}

function describeType(type: unknown): string {
  if (type === Object) return 'Object (an interface or type literal?)';
  return typeof type === 'function' ? type.name || 'an anonymous type' : String(type);
}
