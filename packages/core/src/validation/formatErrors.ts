import { clip } from '../protocol';
import type { ErrorObject } from 'ajv/dist/2020';
import { getMetadataStorage } from 'class-validator';
import type { ValidationError } from 'class-validator';
import { urlProblem } from './urlProblem';

/** Enough messages to correct a call without flooding the model. */
const MAX_MESSAGES = 20;

/** ajv errors as `"path": problem` lines, e.g. `"location.lat": must be <= 90`. */
export function formatAjvErrors(errors: readonly ErrorObject[]): string[] {
  return limit(errors.map(ajvMessage));
}

/** class-validator errors (a tree) as `"path": message` lines. */
export function formatClassValidatorErrors(errors: readonly ValidationError[]): string[] {
  const out: string[] = [];
  const walk = (list: readonly ValidationError[], parent: string): void => {
    for (const error of list) {
      const path = joinPath(parent, error.property);
      for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
        // "must be a URL address" does not say why: the protocol, the top-level domain, or no URL at all.
        const reason = constraint === 'isUrl' ? urlProblem(error.value, urlOptionsOf(error)) : undefined;
        out.push(`${subject(path)}: ${reason ?? message}`);
      }
      if (error.children?.length) walk(error.children, path);
    }
  };
  walk(errors, '');
  return limit(out);
}

/** Schema messages and then class-validator ones, as one answer (duplicates dropped, at most 20). */
export function mergeMessages(first: readonly string[], second: readonly string[]): string[] {
  return limit([...first.filter((m) => !m.startsWith('…and ')), ...second.filter((m) => !m.startsWith('…and '))]);
}

/** The options the `@IsUrl` of the failing property was given. */
function urlOptionsOf(error: ValidationError): Record<string, unknown> | undefined {
  const target = (error.target as object | undefined)?.constructor;
  if (!target) return undefined;
  const declared = getMetadataStorage()
    .getTargetValidationMetadatas(target as new () => unknown, '', true, false)
    .find((metadata) => metadata.propertyName === error.property && metadata.name === 'isUrl');
  return declared?.constraints?.[0] as Record<string, unknown> | undefined;
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
