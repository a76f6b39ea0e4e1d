/** Types the compiler records for parameters that carry no schema: interfaces, primitives, built-ins. */
const NOT_DTO_TYPES = new Set<unknown>([Object, String, Number, Boolean, Array, Function, Promise, Symbol, Date]);

/** True when `type` is a class that can describe input (a DTO). */
export function isDtoClass(type: unknown): boolean {
  return typeof type === 'function' && !NOT_DTO_TYPES.has(type);
}
