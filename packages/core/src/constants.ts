/** Every metadata key and symbol of the framework lives here. */

/** Reflect metadata written by TypeScript's `emitDecoratorMetadata`. */
export const DESIGN_PARAM_TYPES = 'design:paramtypes';
export const DESIGN_TYPE = 'design:type';
export const DESIGN_RETURN_TYPE = 'design:returntype';

/** Injection token under which a request's Context is registered in its child container. */
export const CONTEXT_TOKEN = Symbol.for('typemcp.context');

