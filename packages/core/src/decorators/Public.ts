import { accessDecorator } from './access';

/**
 * Anyone may see and use this target, anonymous callers too where the authentication allows
 * them. On a method it overrides its class's rules; on a class it opens the methods that
 * declare no rule of their own.
 */
export function Public(): ClassDecorator & MethodDecorator {
  return accessDecorator('Public', { public: true });
}
