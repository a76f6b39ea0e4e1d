/** Every metadata key and symbol of the framework lives here. */

/** Reflect metadata written by TypeScript's `emitDecoratorMetadata`. */
export const DESIGN_PARAM_TYPES = 'design:paramtypes';
export const DESIGN_TYPE = 'design:type';


/**
 * Where the metadata store lives on globalThis. A process may load two copies of
 * @typemcp/core (a nested install, or ESM beside CJS); they share decorators' definitions
 * through this key. The suffix changes when the store's shape does.
 */
export const METADATA_STORE_KEY = Symbol.for('typemcp.metadataStore.v1');

/** The brands an error prototype carries, so `instanceof` works across copies of @typemcp/core. */
export const ERROR_BRANDS = Symbol.for('typemcp.errorBrands');

/** Where tsyringe's `@inject(token)` records constructor parameter tokens. */
export const TSYRINGE_INJECTION_TOKENS = 'injectionTokens';

/**
 * Where a bundle made by `typemcp build` puts its precompiled validators (schema key →
 * ajv standalone function), before the application's code runs; see validation/precompiled.ts.
 */
export const PRECOMPILED_VALIDATORS_KEY = Symbol.for('typemcp.precompiledValidators.v1');

/** Where `typemcp build` asks, while it loads an application, to hear every schema a server will compile. */
export const SCHEMA_COLLECTOR_KEY = Symbol.for('typemcp.schemaCollector.v1');

/** Where `typemcp registry init`, while it loads an application, hears the servers it declares. */
export const SERVER_COLLECTOR_KEY = Symbol.for('typemcp.serverCollector.v1');
