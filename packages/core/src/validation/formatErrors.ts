import { clip } from '../protocol';
import type { ErrorObject } from 'ajv/dist/2020';
import { getMetadataStorage } from 'class-validator';
import type { ValidationArguments, ValidationError } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { metadataStore } from '../metadata';
import { urlProblem } from './urlProblem';

/** Enough messages to correct a call without flooding the model. */
const MAX_MESSAGES = 20;

/** ajv errors as `"path": problem` lines, e.g. `"location.lat": must be <= 90`. */
export function formatAjvErrors(errors: readonly ErrorObject[]): string[] {
  return limit(errors.map(ajvMessage));
}

/**
 * class-validator errors (a tree) as `"path": message` lines. A `@Sensitive` property's lines,
 * and those of everything inside it, keep the path and the rule but never the value.
 */
export function formatClassValidatorErrors(errors: readonly ValidationError[]): string[] {
  const out: string[] = [];
  const walk = (list: readonly ValidationError[], parent: string, insideSensitive: boolean): void => {
    for (const error of list) {
      const path = joinPath(parent, error.property);
      const sensitive = insideSensitive || isSensitive(error);
      for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
        // "must be a URL address" does not say why: the protocol, the top-level domain, or no URL at all.
        const reason = constraint === 'isUrl' ? urlProblem(error.value, urlOptionsOf(error), !sensitive) : undefined;
        out.push(`${subject(path)}: ${reason ?? (sensitive ? valueFreeMessage(error, constraint) : message)}`);
      }
      if (error.children?.length) walk(error.children, path, sensitive);
    }
  };
  walk(errors, '', false);
  return limit(out);
}

/** Schema messages and then class-validator ones, as one answer (duplicates dropped, at most 20). */
export function mergeMessages(first: readonly string[], second: readonly string[]): string[] {
  return limit([...first.filter((m) => !m.startsWith('…and ')), ...second.filter((m) => !m.startsWith('…and '))]);
}

/** The options the `@IsUrl` of the failing property was given. */
function urlOptionsOf(error: ValidationError): Record<string, unknown> | undefined {
  return declarationOf(error, 'isUrl')?.constraints?.[0] as Record<string, unknown> | undefined;
}

/** The declaration of one constraint of the failing property. */
function declarationOf(error: ValidationError, constraint: string): ValidationMetadata | undefined {
  const target = (error.target as object | undefined)?.constructor;
  if (!target) return undefined;
  const storage = getMetadataStorage();
  // class-validator keys a failed constraint by its validator's name, else by the decorator's type.
  const keyOf = (metadata: ValidationMetadata) => (metadata.constraintCls ? storage.getTargetValidatorConstraints(metadata.constraintCls)[0]?.name : undefined) || metadata.type;
  return storage
    .getTargetValidationMetadatas(target as new () => unknown, '', true, false)
    .find((metadata) => metadata.propertyName === error.property && keyOf(metadata) === constraint);
}

/** True when the failing property is `@Sensitive` on the DTO it belongs to. */
function isSensitive(error: ValidationError): boolean {
  const target = (error.target as object | undefined)?.constructor;
  return typeof target === 'function' && metadataStore.isSensitive(target as new () => unknown, error.property);
}

/**
 * A constraint's message made without the value: the author's own message when it is a text
 * that does not quote `$value`, else the constraint's default message (a function message may
 * compute anything from the value). The default is rendered with the value and the object
 * withheld; built-in ones never quote it, and a custom constraint that tries sees nothing.
 */
function valueFreeMessage(error: ValidationError, constraint: string): string {
  const declared = declarationOf(error, constraint);
  const fallback = `does not satisfy ${constraint}`;
  if (!declared) return fallback;
  const args: ValidationArguments = { value: undefined, constraints: declared.constraints ?? [], targetName: declared.target instanceof Function ? declared.target.name : String(declared.target), object: {}, property: error.property };
  let message: unknown = typeof declared.message === 'string' && !declared.message.includes('$value') ? declared.message : undefined;
  if (message === undefined) {
    try {
      const validator = declared.constraintCls ? getMetadataStorage().getTargetValidatorConstraints(declared.constraintCls)[0] : undefined;
      const instance = validator?.instance as { defaultMessage?: (args: ValidationArguments) => unknown } | undefined;
      message = instance?.defaultMessage?.(args);
    } catch {
      message = undefined;
    }
  }
  if (typeof message !== 'string' || message === '') return fallback;
  args.constraints.forEach((value, index) => {
    message = (message as string).replaceAll(`$constraint${index + 1}`, Array.isArray(value) ? value.join(', ') : String(value));
  });
  return (message as string).replaceAll('$value', 'the value').replaceAll('$property', error.property).replaceAll('$target', args.targetName);
}

function ajvMessage(error: ErrorObject): string {
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `missing required property "${joinPath(path, String(params.missingProperty))}"`;
    case 'additionalProperties':
      return `unknown property "${joinPath(path, clip(String(params.additionalProperty)))}"`;
    case 'enum':
      return `${subject(path)}: must be one of ${listValues(params.allowedValues)}`;
    case 'const':
      return `${subject(path)}: must be equal to ${JSON.stringify(params.allowedValue)}`;
    case 'not':
      return `${subject(path)}: ${notMessage(error.schema)}`;
    default:
      return `${subject(path)}: ${error.message ?? 'is invalid'}`;
  }
}

/** Our schemas use `not` only for a forbidden constant, list or null. */
function notMessage(schema: unknown): string {
  const not = (schema ?? {}) as Record<string, unknown>;
  if ('const' in not) return `must not be ${JSON.stringify(not.const)}`;
  if (Array.isArray(not.enum)) return `must not be one of ${listValues(not.enum)}`;
  if (not.type === 'null') return 'must not be null';
  return 'is not allowed';
}

function listValues(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => JSON.stringify(v)).join(', ') : String(values);
}

function subject(path: string): string {
  return path === '' ? 'arguments' : `"${path}"`;
}

/** `/location/lat` → `location.lat`, `/items/0/name` → `items[0].name`. On the invalid-arguments hot path: no regular expressions. */
function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  let start = 1;
  while (start <= pointer.length) {
    let end = pointer.indexOf('/', start);
    if (end === -1) end = pointer.length;
    const segment = pointer.slice(start, end);
    path = joinPath(path, segment.includes('~') ? segment.replaceAll('~1', '/').replaceAll('~0', '~') : segment);
    start = end + 1;
  }
  return path;
}

function joinPath(parent: string, segment: string): string {
  if (isIndex(segment)) return `${parent}[${segment}]`;
  return parent === '' ? segment : `${parent}.${segment}`;
}

function isIndex(segment: string): boolean {
  if (segment === '') return false;
  for (let i = 0; i < segment.length; i++) {
    const code = segment.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function limit(messages: string[]): string[] {
  if (messages.length < 2) return messages;
  const unique = [...new Set(messages)];
  if (unique.length <= MAX_MESSAGES) return unique;
  return [...unique.slice(0, MAX_MESSAGES), `…and ${unique.length - MAX_MESSAGES} more problems`];
}
