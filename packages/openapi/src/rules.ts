import type { OperationHead } from './operations';
import type { OpenApiKind, OpenApiRule } from './options';

/** What an operation becomes, and the rule that said so (none: the default, a tool). */
export interface Decision {
  readonly as: OpenApiKind;
  readonly name?: string;
  /** The index of the deciding rule in `rules`. */
  readonly rule?: number;
}

/** The first matching rule's decision; a tool when none matches. */
export function decide(rules: readonly OpenApiRule[], operation: OperationHead, globs: Map<string, RegExp>): Decision {
  for (let i = 0; i < rules.length; i++) {
    if (matches(rules[i], operation, globs)) return { as: rules[i].as, name: rules[i].name, rule: i };
  }
  return { as: 'tool' };
}

function matches(rule: OpenApiRule, operation: OperationHead, globs: Map<string, RegExp>): boolean {
  if (rule.methods && !rule.methods.some((method) => method.toUpperCase() === operation.method)) return false;
  if (rule.tags && !rule.tags.some((tag) => operation.tags.includes(tag))) return false;
  if (rule.operationId !== undefined) {
    const id = operation.operationId;
    if (id === undefined) return false;
    if (typeof rule.operationId === 'string' ? rule.operationId !== id : !test(rule.operationId, id)) return false;
  }
  if (rule.path !== undefined) {
    const pattern = typeof rule.path === 'string' ? globOf(rule.path, globs) : rule.path;
    if (!test(pattern, operation.path)) return false;
  }
  return true;
}

/** A RegExp with the `g` or `y` flag keeps state between tests: start each from the beginning. */
function test(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

/** `*` is any text within one path segment, `**` any text at all; everything else is literal. */
function globOf(glob: string, globs: Map<string, RegExp>): RegExp {
  let pattern = globs.get(glob);
  if (!pattern) {
    const source = glob
      .split('**')
      .map((part) => part.split('*').map(escape).join('[^/]*'))
      .join('.*');
    pattern = new RegExp(`^${source}$`);
    globs.set(glob, pattern);
  }
  return pattern;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
