import { ParseError } from '../errors';

/** Decodes one wire message; throws ParseError (-32700) for anything that is not JSON. */
export function parseMessage(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ParseError(`Parse error: ${(error as Error).message}`);
  }
}
