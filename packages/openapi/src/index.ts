export { fromOpenApi } from './fromOpenApi';
export type { OpenApiOptions, OpenApiRule, OpenApiKind, OpenApiHeaders, OpenApiOperation, OpenApiWarning, OpenApiLoader } from './options';
