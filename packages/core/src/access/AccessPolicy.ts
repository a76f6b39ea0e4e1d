import { AccessDeniedError } from '../errors';
import { metadataStore } from '../metadata';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { AccessGuard } from './Guard';
import type { Principal } from './Principal';

/** What a caller needs to use a target; `null` when anyone may. */
interface Requirement {
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly guards: readonly AccessGuard[];
}

/** Which targets one caller sees in a listing: `key` names the set of callers who see the same. */
export interface ListView {
  readonly key: string;
  /** What the caller's scopes and roles allow; guards are asked separately (`passGuards`). */
  admits(target: InvocationTarget): boolean;
}

const KIND_NAMES = { tool: 'tool', resource: 'resource', prompt: 'prompt', completion: 'completion' } as const;

/**
 * Who may use which tool, resource, prompt and completion: the `@Public`, `@Scopes`, `@Roles`
 * and `@Guard` rules, read once per target. Idle (one boolean test per request) until a class
 * declares a rule or the server gets an authentication.
 */
export class AccessPolicy {
  private readonly requirements = new WeakMap<InvocationTarget, Requirement | null>();
  private authenticated = false;

  /** From now on, every target not marked `@Public()` needs an authenticated caller. */
  requireAuthentication(): void {
    this.authenticated = true;
  }

  /** Whether any rule applies at all; false keeps every check off the hot path. */
  get active(): boolean {
    return this.authenticated || metadataStore.declaresAccess;
  }

  /** Throws AccessDeniedError when the caller of `ctx` may not use `target`; a promise when a guard is async. */
  check(target: InvocationTarget, ctx: Context): void | Promise<void> {
    if (!this.active) return;
    const requirement = this.requirementOf(target);
    if (requirement === null) return;
    const principal = ctx.principal;
    const what = `${KIND_NAMES[target.kind]} "${target.name}"`;
    if (principal === undefined) {
      throw new AccessDeniedError('unauthenticated', `Access denied: ${what} needs an authenticated caller`, requirement.scopes.length > 0 ? { scopes: requirement.scopes } : {});
    }
    const missing = requirement.scopes.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) {
      throw new AccessDeniedError(
        'insufficient_scope',
        `Access denied: ${what} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which the caller's credentials do not grant`,
        // Granted plus missing: re-authorizing for these keeps what the client already had.
        { scopes: [...new Set([...principal.scopes, ...requirement.scopes])] },
      );
    }
    if (!hasRole(requirement, principal)) {
      throw new AccessDeniedError('forbidden', `Access denied: ${what} is for the role${requirement.roles.length > 1 ? 's' : ''} ${requirement.roles.join(' or ')}`);
    }
    if (requirement.guards.length === 0) return;
    const verdicts = requirement.guards.map((guard) => guard({ principal, target, context: ctx }));
    const settle = (settled: readonly unknown[]) => {
      const refused = settled.findIndex((verdict) => verdict !== true);
      if (refused < 0) return;
      const name = requirement.guards[refused].name || `#${refused}`;
      throw new AccessDeniedError('forbidden', `Access denied: ${what} was refused by the guard ${name}`);
    };
    if (verdicts.some((verdict) => verdict instanceof Promise)) return Promise.all(verdicts).then(settle);
    settle(verdicts);
  }

  /** The listing view of the caller of `ctx`, or undefined when listings show everything. */
  view(ctx: Context): ListView | undefined {
    if (!this.active) return undefined;
    const principal = ctx.principal;
    const key = principal === undefined ? 'anonymous' : `${[...principal.scopes].sort().join(' ')}\u0000${[...(principal.roles ?? [])].sort().join(' ')}`;
    return {
      key,
      admits: (target) => {
        const requirement = this.requirementOf(target);
        if (requirement === null) return true;
        return principal !== undefined && requirement.scopes.every((scope) => principal.scopes.includes(scope)) && hasRole(requirement, principal);
      },
    };
  }

  /**
   * The items whose guards let the caller of `ctx` see them. The same array when none of them
   * has a guard, so listings without guards stay synchronous and cached.
   */
  passGuards<T>(items: readonly T[], targetOf: (item: T) => InvocationTarget, ctx: Context): readonly T[] | Promise<T[]> {
    if (!this.active || !items.some((item) => (this.requirementOf(targetOf(item))?.guards.length ?? 0) > 0)) return items;
    const principal = ctx.principal;
    const admitted = items.map(async (item) => {
      const target = targetOf(item);
      for (const guard of this.requirementOf(target)?.guards ?? []) if ((await guard({ principal, target, context: ctx })) !== true) return false;
      return true;
    });
    return Promise.all(admitted).then((verdicts) => items.filter((_, i) => verdicts[i]));
  }

  private requirementOf(target: InvocationTarget): Requirement | null {
    let requirement = this.requirements.get(target);
    if (requirement === undefined) {
      requirement = this.resolve(target);
      this.requirements.set(target, requirement);
    }
    return requirement;
  }

  /** A method's `@Public()` wins; otherwise the class's and the method's rules add up. */
  private resolve(target: InvocationTarget): Requirement | null {
    const { classLevel, methodLevel } = metadataStore.accessOf(target.provider, target.methodName);
    if (methodLevel.some((d) => d.public)) return null;
    const declared = [...classLevel, ...methodLevel];
    const requirement: Requirement = {
      scopes: [...new Set(declared.flatMap((d) => d.scopes ?? []))],
      roles: [...new Set(declared.flatMap((d) => d.roles ?? []))],
      guards: declared.flatMap((d) => (d.guard === undefined ? [] : [d.guard as AccessGuard])),
    };
    const restricted = requirement.scopes.length > 0 || requirement.roles.length > 0 || requirement.guards.length > 0;
    if (restricted) return requirement;
    // Without rules of its own, a target is open unless the server authenticates its callers.
    return this.authenticated && !classLevel.some((d) => d.public) ? requirement : null;
  }
}

function hasRole(requirement: Requirement, principal: Principal): boolean {
  return requirement.roles.length === 0 || requirement.roles.some((role) => principal.roles?.includes(role) === true);
}
