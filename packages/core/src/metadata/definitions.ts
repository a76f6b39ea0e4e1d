/** Plain definitions the decorators hand to the metadata store. No schema work here. */

export type Constructor<T = unknown> = new (...args: any[]) => T;

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolOptions {
  /** Tool name; defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  /** Input DTO class; defaults to the method's first parameter type. */
  input?: Constructor;
  /** Output DTO class: the result becomes `structuredContent` and the listing gets `outputSchema`. */
  output?: Constructor;
  /** MIME type of binary (`Uint8Array`) results. */
  mimeType?: string;
}

export interface ToolDefinition {
  kind: 'tool';
  target: Constructor;
  methodName: string;
  options: ToolOptions;
  /** `design:paramtypes` of the method, or undefined when the compiler emitted none. */
  paramTypes: unknown[] | undefined;
}

export interface PropertyDescription {
  target: Constructor;
  propertyName: string;
  description: string;
}
