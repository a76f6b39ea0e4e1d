import { DefinitionError, InvalidParamsError } from '../errors';
import type { Constructor, PromptDefinition } from '../metadata';
import { schemaForDto } from '../schema';
import { compileDtoValidator } from '../validation';
import { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import { completeLocally, completionKey } from './completion';
import { describeFor, perRevision } from './describe';
import { isDtoClass } from './dtoTypes';
import { invokeKeepingMeaning } from './invokeKeepingMeaning';
import type { ItemHost } from './ItemHost';
import type { PromptItem } from './PromptItem';

interface PromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** What a prompt of a server's own providers needs of the server. */
export type PromptHost = Pick<ItemHost, 'invoke' | 'access' | 'completions'>;

/** Turns a `@Prompt` definition into a prompt `host` serves: its arguments, checked, then the method's messages. */
export function buildPrompt(definition: PromptDefinition, provider: Constructor, host: PromptHost): PromptItem {
  const { options, methodName, paramTypes } = definition;
  const where = `${provider.name}.${methodName}`;
  const name = options.name ?? methodName;
  const first = paramTypes?.[0];
  let argsType = options.args;
  if (!argsType && first !== undefined && first !== Context) {
    if (!isDtoClass(first)) {
      throw new DefinitionError(
        'TOOL_INPUT_NOT_A_CLASS',
        `${where}: the prompt's arguments parameter carries no schema; declare it as a class with class-validator decorators, or name it with @Prompt({ args: YourArgsDto })`,
      );
    }
    argsType = first as Constructor;
  }

  const promptArguments = argsType ? argumentsOf(argsType, where) : [];
  const listing = perRevision((revision) => {
    const entry: Record<string, unknown> = { name };
    describeFor(revision, entry, options);
    if (promptArguments.length > 0) entry.arguments = promptArguments.map((a) => ({ ...a }));
    return entry;
  });
  const target: InvocationTarget = { kind: 'prompt', name, provider, methodName };
  const argsValidator = argsType ? compileDtoValidator(argsType) : undefined;
  const takesArgs = argsType !== undefined && first !== Context;
  return {
    name,
    target,
    listing,
    async get(params, ctx) {
      const given = params.arguments ?? {};
      if (typeof given !== 'object' || given === null || Array.isArray(given)) {
        throw new InvalidParamsError(`Invalid arguments for prompt "${name}": "arguments" must be an object of strings`);
      }
      const missing = promptArguments.filter((a) => a.required && (given as Record<string, unknown>)[a.name] === undefined);
      if (missing.length > 0) {
        throw new InvalidParamsError(
          `Missing required argument${missing.length > 1 ? 's' : ''} for prompt "${name}": ${missing.map((a) => a.name).join(', ')}`,
          { missing: missing.map((a) => a.name) },
        );
      }
      const callArgs: unknown[] = [];
      if (argsValidator) {
        const outcome = await argsValidator.validate(given);
        if (!outcome.ok) throw new InvalidParamsError(`Invalid arguments for prompt "${name}": ${outcome.errors.join('; ')}`);
        if (takesArgs) callArgs.push(outcome.value);
      }
      callArgs.push(ctx);
      return shapePrompt(await invokeKeepingMeaning(host, target, callArgs, ctx));
    },
    complete: (params, ctx) => completeLocally(host, completionKey({ prompt: name, argument: (params.argument as { name: string }).name }), params, ctx),
  };
}

/** Prompt arguments are strings on the wire; the args DTO's properties become them. */
function argumentsOf(dto: Constructor, where: string): PromptArgument[] {
  const schema = schemaForDto(dto) as { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    if (property.type !== undefined && property.type !== 'string') {
      throw new DefinitionError(
        'UNSUPPORTED_PROPERTY_TYPE',
        `${where}: prompt argument "${name}" of ${dto.name} is typed ${JSON.stringify(property.type)}, but prompt arguments are strings; declare it as a string`,
      );
    }
    const argument: PromptArgument = { name, required: required.has(name) };
    if (property.description !== undefined) argument.description = property.description;
    return argument;
  });
}

/** A string becomes one user text message; a message array or a full result passes through. */
function shapePrompt(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  if (Array.isArray(value)) return { messages: value };
  if (typeof value === 'object' && value !== null && Array.isArray((value as { messages?: unknown }).messages)) {
    return value as Record<string, unknown>;
  }
  throw new TypeError('A prompt must return a string, an array of messages, or { messages, description? }');
}
