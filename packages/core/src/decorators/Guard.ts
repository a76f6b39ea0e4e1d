import type { AccessGuard } from '../access';
import { accessDecorator } from './access';

/**
 * A custom access rule: `fn({ principal, target, context })` returns true (or a promise of
 * true) to let the caller see and use the target. Runs on every call and every listing that
 * would show the target, after `@Scopes` and `@Roles`; several guards must all pass.
 */
export function Guard(fn: AccessGuard): ClassDecorator & MethodDecorator {
  if (typeof fn !== 'function') throw new TypeError(`@Guard: needs a function ({ principal, target, context }) => boolean, not ${fn === null ? 'null' : typeof fn}`);
  return accessDecorator('Guard', { guard: fn });
}
