/** Every metadata key and symbol of the framework lives here. */

/** Reflect metadata written by TypeScript's `emitDecoratorMetadata`. */
export const DESIGN_PARAM_TYPES = 'design:paramtypes';
export const DESIGN_TYPE = 'design:type';

