import { IsString, MaxLength, MinLength } from 'class-validator';
import { Description, Tool } from '@typemcp/core';

/** The tool's input: a class whose validation decorators become its JSON Schema and are checked on every call. */
export class HelloInput {
  @IsString() @MinLength(1) @MaxLength(100)
  @Description('Who to greet')
  name!: string;
}

/**
 * A provider: a class whose decorated methods the server serves. Add your tools here, or in
 * classes of their own listed in server.ts. `input:` is spelled out so the server also runs
 * under compilers that emit no decorator metadata (tsx, esbuild, vitest).
 */
export class HelloTools {
  @Tool({ description: 'Say hello to someone', annotations: { readOnlyHint: true }, input: HelloInput })
  hello(input: HelloInput): string {
    return `Hello, ${input.name}!`;
  }
}
