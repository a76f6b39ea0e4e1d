import * as ts from 'typescript';
import { Completion, DefinitionError, Description, EnumTitles, Prompt, Resource, Title, Tool, UseMiddleware } from '@typemcp/core';

/** What a standard (TC39) decorator receives as its second argument. */
const methodContext = { kind: 'method', name: 'greet', static: false, private: false, addInitializer: () => undefined };
const fieldContext = { kind: 'field', name: 'city', static: false, private: false, addInitializer: () => undefined };

function thrown(apply: () => unknown): DefinitionError {
  try {
    apply();
  } catch (error) {
    return error as DefinitionError;
  }
  throw new Error('expected a DefinitionError');
}

describe('decorators applied as standard (TC39) decorators', () => {
  it.each([
    ['Tool', () => (Tool() as unknown as (v: unknown, c: unknown) => void)(() => undefined, methodContext), 'greet'],
    ['Resource', () => (Resource({ uri: 'a://b' }) as unknown as (v: unknown, c: unknown) => void)(() => undefined, methodContext), 'greet'],
    ['Prompt', () => (Prompt() as unknown as (v: unknown, c: unknown) => void)(() => undefined, methodContext), 'greet'],
    ['Completion', () => (Completion({ prompt: 'p', argument: 'a' }) as unknown as (v: unknown, c: unknown) => void)(() => undefined, methodContext), 'greet'],
    ['UseMiddleware', () => (UseMiddleware((_c, next) => next()) as unknown as (v: unknown, c: unknown) => void)(() => undefined, methodContext), 'greet'],
    ['Description', () => (Description('x') as unknown as (v: unknown, c: unknown) => void)(undefined, fieldContext), 'city'],
    ['Title', () => (Title('x') as unknown as (v: unknown, c: unknown) => void)(undefined, fieldContext), 'city'],
    ['EnumTitles', () => (EnumTitles({ a: 'A' }) as unknown as (v: unknown, c: unknown) => void)(undefined, fieldContext), 'city'],
  ])('@%s names the compiler options to set', (name, apply, member) => {
    const error = thrown(apply);
    expect(error).toBeInstanceOf(DefinitionError);
    expect(error.code).toBe('EXPERIMENTAL_DECORATORS_REQUIRED');
    expect(error.message).toContain(`@${name} on ${member} was applied as a standard (TC39) decorator`);
    expect(error.message).toContain('"experimentalDecorators": true and "emitDecoratorMetadata": true in tsconfig.json');
  });

  it('fail that way in code TypeScript compiled without experimentalDecorators', () => {
    const source = `
      import { Description, Tool } from '@typemcp/core';
      class Input { @Description('Who') name!: string; }
      class Greeter { @Tool() greet(input: Input) { return input.name; } }
    `;
    const { outputText } = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS } });
    expect(outputText).toContain('__esDecorate');
    const run = new Function('require', 'exports', outputText);
    const error = thrown(() => run(require, {}));
    expect(error.code).toBe('EXPERIMENTAL_DECORATORS_REQUIRED');
    expect(error.message).toMatch(/^@Description on name was applied/);
  });
});
