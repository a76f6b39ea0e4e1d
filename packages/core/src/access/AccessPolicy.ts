import { AccessDeniedError, DefinitionError } from '../errors';
import { metadataStore } from '../metadata';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { AccessGuard } from './Guard';
import type { Principal } from '../protocol';

/** A target's declared rules, resolved once. */
interface Rules {
  /** `@Public()`: anyone, anonymous callers too. */
  readonly open: boolean;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly guards: readonly AccessGuard[];
}

const NO_RULES: Rules = Object.freeze({ open: false, scopes: [], roles: [], guards: [] });

/** Which targets one caller sees in a listing: `key` names the set of callers who see the same. */
export interface ListView {
  readonly key: string;
  /** What the caller's scopes and roles allow; guards are asked separately (`passGuards`). */
  admits(target: InvocationTarget): boolean;
}

/**
 * Who may use which tool, resource, prompt and completion: the `@Public`, `@Scopes`, `@Roles`
 * and `@Guard` rules of each target, read when the server registers it (later changes to the
 * metadata store do not loosen them). Idle, one test per request, while no registered target
 * has rules and the server has no authentication.
 */
export class AccessPolicy {
  private readonly rules = new WeakMap<InvocationTarget, Rules>();
  private restrictedTargets = 0;
  private authenticated = false;

  /** From now on, every target not marked `@Public()` needs an authenticated caller. */
  requireAuthentication(): void {
    this.authenticated = true;
  }

  /**
   * Reads the rules of targets the server registers, all or none: a `@Public()` method with
   * rules of its own fails with a DefinitionError and nothing is kept.
   */
  register(targets: readonly InvocationTarget[]): void {
    const resolved = targets.filter((target) => !this.rules.has(target)).map((target) => [target, resolve(target)] as const);
    for (const [target, rules] of resolved) {
      this.rules.set(target, rules);
      if (isRestricted(rules)) this.restrictedTargets++;
    }
  }

  /**
   * Sets the rules of a target no decorator describes (an item served elsewhere, `server.remote`),
   * as `@Public`, `@Scopes` and `@Roles` would.
   */
  define(target: InvocationTarget, access: { public?: boolean; scopes?: readonly string[]; roles?: readonly string[] }): void {
    const rules: Rules = { open: access.public === true, scopes: [...new Set(access.scopes ?? [])], roles: [...new Set(access.roles ?? [])], guards: [] };
    if (rules.open && isRestricted(rules)) throw new DefinitionError('INVALID_OPTION', `${describe(target)}: public opens it to anyone; drop its scopes and roles`);
    const before = this.rules.get(target);
    if (before && isRestricted(before)) this.restrictedTargets--;
    this.rules.set(target, rules);
    if (isRestricted(rules)) this.restrictedTargets++;
  }

  /** Drops the rules of a target that is gone (a remote item removed): listings stop differing per caller for it. */
  forget(target: InvocationTarget): void {
    const rules = this.rules.get(target);
    if (rules === undefined) return;
    this.rules.delete(target);
    if (isRestricted(rules)) this.restrictedTargets--;
  }

  /**
   * Takes the rules `from` (another server's policy) holds for `target`: a mounted server's
   * items are checked here by their own rules, decorated or defined.
   */
  adopt(target: InvocationTarget, from: AccessPolicy): void {
    if (this.rules.has(target)) return;
    const rules = from.rulesOf(target);
    this.rules.set(target, rules);
    if (isRestricted(rules)) this.restrictedTargets++;
  }

  /** The scopes a target needs (`@Scopes`, or the access it was defined with). */
  scopesOf(target: InvocationTarget): readonly string[] {
    return this.rulesOf(target).scopes;
  }

  /** Whether listings may differ per caller on this server. */
  get active(): boolean {
    return this.authenticated || this.restrictedTargets > 0;
  }

  /** Throws AccessDeniedError when the caller of `ctx` may not use `target`; a promise when a guard is async. */
  check(target: InvocationTarget, ctx: Context): void | Promise<void> {
    // Targets the server never registered (tools offered to ctx.sample) are read on first use.
    if (!this.active && !metadataStore.declaresAccess) return;
    const rules = this.rulesOf(target);
    if (rules.open || (!isRestricted(rules) && !this.authenticated)) return;
    const principal = ctx.principal;
    if (principal === undefined) {
      throw new AccessDeniedError('unauthenticated', `Access denied: ${describe(target)} needs an authenticated caller`, rules.scopes.length > 0 ? { scopes: rules.scopes } : {});
    }
    const missing = rules.scopes.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) {
      throw new AccessDeniedError(
        'insufficient_scope',
        `Access denied: ${describe(target)} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which the caller's credentials do not grant`,
        // Granted plus missing: re-authorizing for these keeps what the client already had.
        { scopes: [...new Set([...principal.scopes, ...rules.scopes])] },
      );
    }
    if (!hasRole(rules, principal)) {
      throw new AccessDeniedError('forbidden', `Access denied: ${describe(target)} is for the role${rules.roles.length > 1 ? 's' : ''} ${rules.roles.join(' or ')}`);
    }
    if (rules.guards.length === 0) return;
    const verdicts = rules.guards.map((guard) => guard({ principal, target, params: ctx.requestParams, context: ctx }));
    const settle = (settled: readonly unknown[]) => {
      const refused = settled.findIndex((verdict) => verdict !== true);
      if (refused < 0) return;
      const name = rules.guards[refused].name || `#${refused}`;
      throw new AccessDeniedError('forbidden', `Access denied: ${describe(target)} was refused by the guard ${name}`);
    };
    if (verdicts.some((verdict) => verdict instanceof Promise)) return Promise.all(verdicts).then(settle);
    settle(verdicts);
  }

  /** The listing view of the caller of `ctx`, or undefined when listings show everything. */
  view(ctx: Context): ListView | undefined {
    if (!this.active) return undefined;
    const principal = ctx.principal;
    // JSON keeps names with spaces or separators apart: ["a b"] is not ["a", "b"].
    const key = principal === undefined ? 'anonymous' : JSON.stringify([[...new Set(principal.scopes)].sort(), [...new Set(principal.roles ?? [])].sort()]);
    return {
      key,
      admits: (target) => {
        const rules = this.rulesOf(target);
        if (rules.open || (!isRestricted(rules) && !this.authenticated)) return true;
        return principal !== undefined && rules.scopes.every((scope) => principal.scopes.includes(scope)) && hasRole(rules, principal);
      },
    };
  }

  /**
   * The items whose guards let the caller of `ctx` see them (the view admitted them, so the
   * caller is authenticated). The same array when none has a guard: listings stay synchronous.
   */
  passGuards<T>(items: readonly T[], targetOf: (item: T) => InvocationTarget, ctx: Context): readonly T[] | Promise<T[]> {
    const principal = ctx.principal;
    if (!this.active || principal === undefined || !items.some((item) => this.rulesOf(targetOf(item)).guards.length > 0)) return items;
    const admitted = items.map(async (item) => {
      const target = targetOf(item);
      for (const guard of this.rulesOf(target).guards) if ((await guard({ principal, target, params: ctx.requestParams, context: ctx })) !== true) return false;
      return true;
    });
    return Promise.all(admitted).then((verdicts) => items.filter((_, i) => verdicts[i]));
  }

  private rulesOf(target: InvocationTarget): Rules {
    let rules = this.rules.get(target);
    if (rules === undefined) {
      rules = resolve(target);
      this.rules.set(target, rules);
    }
    return rules;
  }
}

/**
 * A method's own `@Public()` opens it; otherwise its class's rules and its own add up. The
 * nearest class that declares rules decides, for the class and for the method alike.
 */
function resolve(target: InvocationTarget): Rules {
  const { classLevel, methodLevel } = metadataStore.accessOf(target.provider, target.methodName);
  const declared = [...classLevel, ...methodLevel];
  if (declared.length === 0) return NO_RULES;
  const own = methodLevel.filter((d) => !d.public);
  if (methodLevel.some((d) => d.public)) {
    if (own.length > 0) {
      throw new DefinitionError('INVALID_OPTION', `${target.provider.name}.${target.methodName}: @Public() opens the method to anyone; remove it or its @Scopes/@Roles/@Guard`);
    }
    return { ...NO_RULES, open: true };
  }
  const rules: Rules = {
    open: false,
    scopes: [...new Set(declared.flatMap((d) => d.scopes ?? []))],
    roles: [...new Set(declared.flatMap((d) => d.roles ?? []))],
    guards: declared.flatMap((d) => (d.guard === undefined ? [] : [d.guard as AccessGuard])),
  };
  // A public class opens the methods without rules of their own.
  if (!isRestricted(rules) && classLevel.some((d) => d.public)) return { ...NO_RULES, open: true };
  return rules;
}

function isRestricted(rules: Rules): boolean {
  return rules.scopes.length > 0 || rules.roles.length > 0 || rules.guards.length > 0;
}

function hasRole(rules: Rules, principal: Principal): boolean {
  return rules.roles.length === 0 || rules.roles.some((role) => principal.roles?.includes(role) === true);
}

function describe(target: InvocationTarget): string {
  return `${target.kind} "${target.name}"`;
}
