import { InvalidParamsError } from '../errors';

/** The `uri` of a request's params: a non-empty string, or -32602 naming the method. */
export function requireUri(params: Record<string, unknown>, method: string): string {
  if (typeof params.uri !== 'string' || params.uri === '') throw new InvalidParamsError(`${method} needs a string "uri"`);
  return params.uri;
}
