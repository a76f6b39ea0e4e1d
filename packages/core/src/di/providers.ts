import type { DependencyContainer } from 'tsyringe';
import { DESIGN_PARAM_TYPES, TSYRINGE_INJECTION_TOKENS } from '../constants';
import { DefinitionError } from '../errors';
import type { Constructor } from '../metadata';

/**
 * Produces provider instances. A provider is built once per server unless its constructor
 * takes the request Context, in which case it is built per request from the request's child
 * container.
 */
export class ProviderResolver {
  private readonly singletons = new Map<Constructor, unknown>();
  private readonly requestScoped = new Set<Constructor>();

  constructor(
    private readonly container: DependencyContainer,
    private readonly contextType: Constructor,
  ) {}

  register(provider: Constructor): void {
    const paramTypes: unknown[] | undefined = Reflect.getMetadata(DESIGN_PARAM_TYPES, provider);
    assertDependenciesKnown(provider, paramTypes);
    if (paramTypes?.includes(this.contextType)) this.requestScoped.add(provider);
  }

  isRequestScoped(provider: Constructor): boolean {
    return this.requestScoped.has(provider);
  }

  /** `request.container` is read only when the provider is request-scoped (it is created on first read). */
  resolve<T>(provider: Constructor<T>, request: { readonly container: DependencyContainer }): T {
    if (this.requestScoped.has(provider)) return construct(provider, request.container);
    let instance = this.singletons.get(provider) as T | undefined;
    if (instance === undefined) {
      instance = construct(provider, this.container);
      this.singletons.set(provider, instance);
    }
    return instance;
  }
}

/**
 * tsyringe fails only when it first builds a provider whose constructor parameter types it
 * cannot know; this finds the common cause (no decorator metadata) when the server is created.
 */
function assertDependenciesKnown(provider: Constructor, paramTypes: unknown[] | undefined): void {
  if (provider.length === 0) return;
  const tokens: Record<number, unknown> | undefined = Reflect.getOwnMetadata(TSYRINGE_INJECTION_TOKENS, provider);
  const unknown: number[] = [];
  for (let index = 0; index < provider.length; index++) {
    if (paramTypes?.[index] === undefined && tokens?.[index] === undefined) unknown.push(index);
  }
  if (unknown.length === 0) return;
  const which = unknown.map((i) => `#${i}`).join(', ');
  const cause = paramTypes
    ? 'their types are undefined in the decorator metadata (a circular import between the files?)'
    : 'the compiler emitted no decorator metadata (esbuild, tsx and vitest do not)';
  throw new DefinitionError(
    'PROVIDER_DEPENDENCIES_UNKNOWN',
    `${provider.name}: constructor parameter(s) ${which} cannot be injected: ${cause}. Compile with "emitDecoratorMetadata": true (tsc or swc), ` +
      `or name each dependency with @inject(Token) from tsyringe, e.g. constructor(@inject(NoteStore) store: NoteStore)`,
  );
}

function construct<T>(provider: Constructor<T>, container: DependencyContainer): T {
  try {
    return container.resolve(provider);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('TypeInfo not known')) throw error;
    throw new DefinitionError(
      'PROVIDER_DEPENDENCIES_UNKNOWN',
      `${provider.name} cannot be built: tsyringe has no type information for it. Decorate it with @injectable() from tsyringe; ` +
        `if it is, the project has two copies of tsyringe (npm ls tsyringe): @typemcp/core takes tsyringe as a peer dependency and needs the project's one. (${error.message})`,
    );
  }
}
