import type { MountedItem } from './mounted';
import type { InvocationTarget } from './middleware';
import { DefinitionError } from '../errors';
import type { Revision } from '../protocol';
import type { Constructor, PromptDefinition } from '../metadata';
import { schemaForDto } from '../schema';
import { compileDtoValidator } from '../validation';
import type { DtoValidator } from '../validation';
import { Context } from './Context';
import { describeFor, perRevision } from './describe';
import { isDtoClass } from './dtoTypes';

export interface PromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

export interface RegisteredPrompt {
  readonly name: string;
  readonly provider: Constructor;
  readonly methodName: string;
  /** What `invoke` calls. */
  readonly target: InvocationTarget;
  readonly arguments: readonly PromptArgument[];
  readonly argsValidator: DtoValidator<unknown> | undefined;
  /** Whether the method takes the arguments as its first parameter (else only the Context). */
  readonly takesArgs: boolean;
  listing(revision: Revision): Record<string, unknown>;
  /** Set when the prompt comes from a mounted server (`server.mount`). */
  readonly mounted?: MountedItem;
}

export function buildPrompt(definition: PromptDefinition, provider: Constructor): RegisteredPrompt {
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
  return {
    name,
    provider,
    methodName,
    target: { kind: 'prompt', name, provider, methodName },
    arguments: promptArguments,
    argsValidator: argsType ? compileDtoValidator(argsType) : undefined,
    takesArgs: argsType !== undefined && first !== Context,
    listing,
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
