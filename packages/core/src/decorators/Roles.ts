import { accessDecorator, checkNames } from './access';

/**
 * The roles that may see and use a target, any one of them (`principal.roles`, filled by the
 * authentication from a claim). A caller without one gets HTTP 403 (no step-up: a new token
 * would not help), or -32003 over stdio; lists leave the target out.
 */
export function Roles(...roles: string[]): ClassDecorator & MethodDecorator {
  return accessDecorator('Roles', { roles: checkNames('Roles', 'role', roles) });
}
