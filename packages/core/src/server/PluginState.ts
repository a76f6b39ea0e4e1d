import type { Revision } from '../protocol';
import type { HttpStage } from '../protocol';
import type { Dispatcher } from '../runtime/Dispatcher';
import type { CoreCapabilityValue, PluginAdditions, PluginTarget, ServedItem, ServiceKey } from '../runtime/plugins';
import { ClusterService } from '../runtime/services';
import { httpStageRefusal } from '../transports';
import type { Readiness } from '../transports';

/** What the plugin state is given by the server it is part of. */
export interface PluginStateWiring {
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly dispatcher: Dispatcher;
  /** Whether the server has `requestState.secret`, which a cluster needs. */
  readonly hasRequestStateSecret: boolean;
  /** The scopes the server's targets need now. */
  declaredScopes(): string[];
  /** The item a request names. */
  itemOf(method: string, params: Readonly<Record<string, unknown>>): ServedItem | undefined;
  reportError(what: string, error: unknown): void;
  /** What of a plugin's additions other parts of the server take (services, routes, observers). */
  applyElsewhere(additions: PluginAdditions): void;
}

/**
 * What the plugins added to one server that the server keeps as it is: the capabilities and
 * extensions declared (and what they show per revision), the services provided, the HTTP
 * stages, readiness checks and close hooks. The plugin registry's target.
 */
export class PluginState implements PluginTarget {
  /** The HTTP stages plugins added, in the order added: a new array each time, so the HTTP handlers place them again. */
  httpStages: readonly HttpStage[] = [];
  /** Capabilities of the `initialize` result, in the order declared (built-in features first). */
  private readonly declared = new Map<string, CoreCapabilityValue>();
  /** `capabilities.extensions`, one entry per extension, from plugins' `extension(name, settings)`. */
  private readonly advertised = new Map<string, CoreCapabilityValue>();
  private readonly services = new Map<ServiceKey<unknown>, unknown>();
  private readonly closeHooks: Array<() => void | Promise<void>> = [];
  private readonly readinessChecks = new Map<string, () => boolean>();
  /** Capabilities and extensions per revision, until something they depend on changes. */
  private readonly described = new Map<Revision, { capabilities: Record<string, unknown>; extensions: Record<string, unknown> }>();

  constructor(private readonly wiring: PluginStateWiring) {}

  declaredScopes(): string[] {
    return this.wiring.declaredScopes();
  }

  itemOf(method: string, params: Readonly<Record<string, unknown>>): ServedItem | undefined {
    return this.wiring.itemOf(method, params);
  }

  get serverInfo(): { readonly name: string; readonly version: string } {
    return this.wiring.serverInfo;
  }

  reportError(what: string, error: unknown): void {
    this.wiring.reportError(what, error);
  }

  routeRefusal(method: string, kind: 'request' | 'notification') {
    return this.wiring.dispatcher.refusal(method, kind);
  }

  hasCapability(name: string): boolean {
    return this.declared.has(name);
  }

  hasExtension(name: string): boolean {
    return this.advertised.has(name);
  }

  hasService(service: ServiceKey<unknown>): boolean {
    return this.services.has(service);
  }

  hasReadinessCheck(name: string): boolean {
    return this.readinessChecks.has(name);
  }

  httpStageRefusal(stage: HttpStage, added: readonly HttpStage[]) {
    return httpStageRefusal(stage, [...this.httpStages, ...added]);
  }

  serviceRefusal(service: ServiceKey<unknown>): string | undefined {
    if (service === ClusterService && !this.wiring.hasRequestStateSecret) {
      return 'a cluster needs requestState.secret (McpServer({ requestState: { secret } })), the same on every replica, so any replica accepts the retries of 2026-07-28 requests';
    }
    return undefined;
  }

  apply(additions: PluginAdditions): void {
    const { capabilities, extensions, services, closeHooks, readinessChecks, httpStages } = additions;
    if (httpStages.length > 0) this.httpStages = [...this.httpStages, ...httpStages];
    for (const [name, check] of readinessChecks) this.readinessChecks.set(name, check);
    for (const [service, value] of services) this.services.set(service, value);
    this.wiring.applyElsewhere(additions);
    for (const [name, value] of capabilities) this.declared.set(name, value);
    for (const [name, value] of extensions) this.advertised.set(name, value);
    this.closeHooks.push(...closeHooks);
    this.described.clear();
  }

  /** What a plugin provided for this service, if one did. */
  service<T>(key: ServiceKey<T>): T | undefined {
    return this.services.get(key) as T | undefined;
  }

  capabilities(revision: Revision): Record<string, unknown> {
    return this.describedFor(revision).capabilities;
  }

  extensions(revision: Revision): Record<string, unknown> {
    return this.describedFor(revision).extensions;
  }

  /** What the server declares may have changed: shown afresh at the next ask. */
  declarationsChanged(): void {
    this.described.clear();
  }

  /** Whether this replica can serve now: every plugin's check, and not closing (see McpServer.readiness). */
  readiness(closing: boolean): Readiness {
    const checks: Record<string, boolean> = {};
    let ready = !closing;
    for (const [name, check] of this.readinessChecks) {
      let passed: boolean;
      try {
        passed = check() === true;
      } catch (error) {
        this.reportError(`the readiness check "${name}" failed`, error);
        passed = false;
      }
      checks[name] = passed;
      ready &&= passed;
    }
    return { ready, checks };
  }

  /** Runs the plugins' close hooks in the order added; a failing one is reported and the next runs. */
  async runCloseHooks(): Promise<void> {
    for (const hook of this.closeHooks) {
      try {
        await hook();
      } catch (error) {
        this.reportError('a plugin close hook failed', error);
      }
    }
  }

  private describedFor(revision: Revision): { capabilities: Record<string, unknown>; extensions: Record<string, unknown> } {
    let described = this.described.get(revision);
    if (!described) {
      described = { capabilities: valuesFor(this.declared, revision), extensions: valuesFor(this.advertised, revision) };
      this.described.set(revision, described);
    }
    return described;
  }
}

/** Each declared value for one revision, in the order declared; a function may leave itself out. */
function valuesFor(declared: ReadonlyMap<string, CoreCapabilityValue>, revision: Revision): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of declared) {
    const shown = typeof value === 'function' ? value(revision.version, revision) : value;
    if (shown !== undefined) values[name] = shown;
  }
  return values;
}
