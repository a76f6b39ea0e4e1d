import type { Context } from '../runtime/Context';
import type { Catalog } from '../items/Catalog';
import type { InvocationTarget } from '../runtime/middleware';
import type { Page, Paginator } from '../runtime/Paginator';

/**
 * One page of a list as the caller of `ctx` may see it: cached per set of callers with the
 * same scopes and roles, then narrowed by guards, which are asked per request. Without access
 * rules, the shared page as is.
 */
export function pageFor<T extends { readonly target: InvocationTarget }>(
  host: Pick<Catalog, 'access'>,
  pages: Paginator<T>,
  cursor: unknown,
  ctx: Context,
): { page: Page<T>; items: readonly T[] | Promise<T[]> } {
  const view = host.access.view(ctx);
  if (view === undefined) {
    const page = pages.page(cursor);
    return { page, items: page.items };
  }
  const page = pages.page(cursor, { key: view.key, admits: (item) => view.admits(item.target) });
  return { page, items: host.access.passGuards(page.items, targetOf, ctx) };
}

/** The items the caller of `ctx` may see, from a list that is not paged: scopes and roles, then guards. */
export function visibleTo<T extends { readonly target: InvocationTarget }>(host: Pick<Catalog, 'access'>, items: readonly T[], ctx: Context): readonly T[] | Promise<T[]> {
  const view = host.access.view(ctx);
  if (view === undefined) return items;
  return host.access.passGuards(
    items.filter((item) => view.admits(item.target)),
    targetOf,
    ctx,
  );
}

/** A list that differs per caller must not be kept by shared caches (2026-07-28 `cacheScope`). */
export function perCaller(result: Record<string, unknown>, host: Pick<Catalog, 'access'>, ctx: Context): Record<string, unknown> {
  if (host.access.active) ctx.hintResult({ cacheScope: 'private' });
  return result;
}

function targetOf(item: { readonly target: InvocationTarget }): InvocationTarget {
  return item.target;
}
