import type { DependencyContainer } from 'tsyringe';
import { DESIGN_PARAM_TYPES } from '../constants';
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
    const paramTypes: unknown[] = Reflect.getMetadata(DESIGN_PARAM_TYPES, provider) ?? [];
    if (paramTypes.includes(this.contextType)) this.requestScoped.add(provider);
  }

  isRequestScoped(provider: Constructor): boolean {
    return this.requestScoped.has(provider);
  }

  /** `requestContainer` is asked for only when the provider is request-scoped. */
  resolve<T>(provider: Constructor<T>, requestContainer: () => DependencyContainer): T {
    if (this.requestScoped.has(provider)) return requestContainer().resolve(provider);
    let instance = this.singletons.get(provider) as T | undefined;
    if (instance === undefined) {
      instance = this.container.resolve(provider);
      this.singletons.set(provider, instance);
    }
    return instance;
  }
}
