import { accessDecorator, checkNames } from './access';

/**
 * The OAuth scopes a caller needs, all of them, to see and use a tool, resource, prompt or
 * completion (on a method), or every one of a provider class (on the class; a method's add to
 * its class's). A caller without them gets HTTP 403 with an `insufficient_scope` challenge
 * naming them (a step-up), or -32003 over stdio; lists leave the target out.
 */
export function Scopes(...scopes: string[]): ClassDecorator & MethodDecorator {
  return accessDecorator('Scopes', { scopes: checkNames('Scopes', 'scope', scopes) });
}
