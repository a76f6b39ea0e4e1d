import { checkToolUi, toolUiMeta, withoutToolUi } from '../apps';
import { DefinitionError } from '../errors';
import type { Constructor, ToolDefinition } from '../metadata';
import { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import { schemaForDto } from '../schema';
import type { JsonSchema } from '../schema';
import { compileDtoValidator, lazySchemaValidator } from '../validation';
import { describeFor, perRevision } from './describe';
import { isDtoClass } from './dtoTypes';
import { headerParamsOf } from './headerParams';
import type { ItemHost } from './ItemHost';
import { callChecked, failedCall, rawValidator, TOOL_NAME } from './ToolItem';
import type { CallToolResult, ToolItem } from './ToolItem';
import { shapeToolResult } from './toolResult';
import type { ResultShape } from './toolResult';

/** Where each method parameter comes from. */
type ParameterSource = 'input' | 'context';

/** What a tool of a server's own providers needs of the server. */
export type ToolHost = Pick<ItemHost, 'invoke' | 'reportError' | 'debug'>;

const EMPTY_INPUT_SCHEMA: JsonSchema = Object.freeze({ type: 'object', properties: {}, additionalProperties: false });

/**
 * Turns a `@Tool` definition into a tool `host` runs: schemas, validators, parameter plan; a
 * call validates the arguments, runs the method through the host's invoker and shapes what it
 * returned.
 */
export function buildTool(definition: ToolDefinition, provider: Constructor, host: ToolHost): ToolItem {
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
  const shape: ResultShape = { name, outputValidator, mimeType: options.mimeType };
  // The method with the validated input, through the host's invoker; what it returned, shaped.
  const runMethod = (input: unknown, ctx: Context): CallToolResult | Promise<CallToolResult> => {
    let value: unknown;
    try {
      const callArgs = parameters.map((source) => (source === 'input' ? input : ctx));
      value = host.invoke(target, callArgs, ctx);
    } catch (error) {
      return failedCall(error, name, host, ctx);
    }
    if (value instanceof Promise) {
      return value.then(
        (resolved) => shapeToolResult(resolved, shape, ctx.revision),
        (error) => failedCall(error, name, host, ctx),
      );
    }
    return shapeToolResult(value, shape, ctx.revision);
  };
  return {
    name,
    target,
    inputSchema,
    annotations: options.annotations,
    headerParams,
    taskSupport,
    taskStart,
    ui,
    listing,
    plainListing,
    call: (args, ctx) => callChecked(name, inputValidator, args, ctx, runMethod),
  };
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

function describeType(type: unknown): string {
  if (type === Object) return 'Object (an interface or type literal?)';
  return typeof type === 'function' ? type.name || 'an anonymous type' : String(type);
}
