import { TypeGenerator, propertyKey, schemaToTypeScript, typeName } from '../../../src/client/schemaToTypes';
import type { JsonSchema } from '../../../src/client/schemaToTypes';
import { typeCheck } from './compile';

/** The body of `export type T = …;` for a schema without $defs. */
const typeOf = (schema: JsonSchema) => {
  const text = schemaToTypeScript(schema, 'T');
  const match = /export type T = ([\s\S]*);\n/.exec(text);
  if (!match) throw new Error(`no declaration of T in:\n${text}`);
  return match[1];
};

describe('schemaToTypeScript', () => {
  it.each<[string, JsonSchema, string]>([
    ['true', true, 'unknown'],
    ['false', false, 'never'],
    ['{}', {}, 'unknown'],
    ['a string', { type: 'string', minLength: 1, pattern: '^a' }, 'string'],
    ['a formatted string', { type: 'string', format: 'date-time' }, 'string'],
    ['an integer', { type: 'integer', minimum: 0 }, 'number'],
    ['a number', { type: 'number' }, 'number'],
    ['a boolean', { type: 'boolean' }, 'boolean'],
    ['null', { type: 'null' }, 'null'],
    ['a list of types', { type: ['string', 'null'] }, 'string | null'],
    ['nullable (OpenAPI 3.0)', { type: 'string', nullable: true }, 'string | null'],
    ['an enum', { enum: ['a', 'b', 1, true, null] }, '"a" | "b" | 1 | true | null'],
    ['an enum beside its type', { type: 'string', enum: ['x', 'y'] }, '"x" | "y"'],
    ['an enum of objects and lists', { enum: [{ a: [1, 'x'] }, []] }, '{ a: readonly [1, "x"] } | readonly []'],
    ['const', { const: 'fixed' }, '"fixed"'],
    ['const of an odd key', { const: { 'a-b': 1 } }, '{ "a-b": 1 }'],
    ['an array', { type: 'array', items: { type: 'string' } }, 'string[]'],
    ['an array of a union', { type: 'array', items: { type: ['string', 'number'] } }, '(string | number)[]'],
    ['an array without items', { type: 'array' }, 'unknown[]'],
    ['an array of arrays', { items: { items: { type: 'boolean' } } }, 'boolean[][]'],
    ['a closed tuple', { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 }, '[string, number]'],
    ['a tuple with optional places', { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 1 }, '[string, number?]'],
    ['an open tuple', { type: 'array', prefixItems: [{ type: 'string' }], minItems: 1 }, '[string, ...unknown[]]'],
    ['a tuple with a rest', { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' }, minItems: 1 }, '[string, ...number[]]'],
    ['a tuple of draft 2019-09', { type: 'array', items: [{ type: 'string' }], additionalItems: false, minItems: 1 }, '[string]'],
    ['an empty tuple', { type: 'array', items: false }, 'never[]'],
    ['anyOf', { anyOf: [{ type: 'string' }, { type: 'integer' }] }, 'string | number'],
    ['oneOf, the same members once', { oneOf: [{ type: 'string' }, { type: 'string', format: 'email' }] }, 'string'],
    ['anyOf with anything', { anyOf: [{ type: 'string' }, {}] }, 'unknown'],
    ['allOf', { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'number' } } }] }, '{\n  a: string;\n} & {\n  b?: number;\n}'],
    ['allOf of unions', { allOf: [{ enum: ['a', 'b'] }, { enum: ['b', 'c'] }] }, '("a" | "b") & ("b" | "c")'],
    ['a type beside anyOf', { type: 'object', properties: { kind: { type: 'string' } }, required: ['kind'], anyOf: [{ properties: { a: { type: 'number' } }, required: ['a'] }, { properties: { b: { type: 'number' } }, required: ['b'] }] }, '{\n  kind: string;\n} & ({\n  a: number;\n} | {\n  b: number;\n})'],
    ['a union made nullable', { anyOf: [{ type: 'string' }, { type: 'number' }], nullable: true }, 'string | number | null'],
    ['an object of anything', { type: 'object' }, 'Record<string, unknown>'],
    ['an object of nothing', { type: 'object', additionalProperties: false }, 'Record<string, never>'],
    ['a map', { type: 'object', additionalProperties: { type: 'number' } }, '{\n  [key: string]: number;\n}'],
    ['a map with patterns', { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false }, '{\n  [key: string]: string;\n}'],
    [
      'properties beside a map',
      { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: { type: 'boolean' } },
      '{\n  id: string;\n  [key: string]: boolean | string;\n}',
    ],
    ['properties without type', { properties: { a: { type: 'string' } } }, '{\n  a?: string;\n}'],
    ['a required name without a property', { type: 'object', required: ['x'] }, '{\n  x: unknown;\n}'],
    [
      'odd property names quoted',
      { type: 'object', properties: { 'content-type': { type: 'string' }, '2fa': { type: 'boolean' }, $ok: { type: 'null' }, 'with "quote"': { type: 'number' } }, required: ['content-type'] },
      '{\n  "content-type": string;\n  "2fa"?: boolean;\n  $ok?: null;\n  "with \\"quote\\""?: number;\n}',
    ],
    ['an object or null', { type: ['object', 'null'], properties: { a: { type: 'string' } }, required: ['a'] }, '{\n  a: string;\n} | null'],
    ['nested objects indent', { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } }, '{\n  a?: {\n    b?: string;\n  };\n}'],
    ['an unknown type', { type: 'decimal' }, 'unknown /* unknown type "decimal" */'],
    ['a $ref outside the schema', { $ref: 'https://example.com/schema.json' }, 'unknown /* $ref https://example.com/schema.json is outside the schema */'],
    ['a $ref to nothing', { $ref: '#/$defs/Missing' }, 'unknown /* $ref #/$defs/Missing points at nothing in the schema */'],
    ['$dynamicRef', { $dynamicRef: '#node' }, 'unknown /* $dynamicRef #node is not followed */'],
    ['a comment that would end the comment', { $ref: 'x*/y' }, 'unknown /* $ref x*\\/y is outside the schema */'],
  ])('%s', (_, schema, expected) => {
    expect(typeOf(schema)).toBe(expected);
  });

  it('writes descriptions, titles, formats, defaults and deprecation as doc comments', () => {
    expect(
      schemaToTypeScript(
        {
          title: 'A bookmark',
          type: 'object',
          properties: {
            url: { type: 'string', format: 'uri', description: 'Where it points.\nAny https URL; never */ in a comment' },
            tags: { type: 'array', items: { type: 'string' }, default: [], title: 'Tags' },
            old: { type: 'boolean', deprecated: true },
          },
          required: ['url'],
        },
        'bookmark',
      ),
    ).toBe(
      [
        '/** A bookmark */',
        'export type Bookmark = {',
        '  /**',
        '   * Where it points.',
        '   * Any https URL; never *\\/ in a comment',
        '   * @format uri',
        '   */',
        '  url: string;',
        '  /**',
        '   * Tags',
        '   * @default []',
        '   */',
        '  tags?: string[];',
        '  /** @deprecated */',
        '  old?: boolean;',
        '};',
        '',
      ].join('\n'),
    );
  });

  it('declares each $defs type once, by its name, recursive ones included', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' }, other: { $ref: '#/$defs/Node' }, parent: { $ref: '#' } },
      required: ['root'],
      $defs: {
        Node: { type: 'object', description: 'A tree node', properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } }, leaf: { $ref: '#/$defs/leaf-kind' } }, required: ['value'] },
        'leaf-kind': { enum: ['a', 'b'] },
      },
    };
    expect(schemaToTypeScript(schema, 'tree')).toBe(
      [
        'export type Tree = {',
        '  root: Node;',
        '  other?: Node;',
        '  parent?: Tree;',
        '};',
        '',
        '/** A tree node */',
        'export type Node = {',
        '  value: string;',
        '  children?: Node[];',
        '  leaf?: LeafKind;',
        '};',
        '',
        'export type LeafKind = "a" | "b";',
        '',
      ].join('\n'),
    );
  });

  it('follows definitions, JSON pointers with escapes and $anchor', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { a: { $ref: '#/definitions/a~1b' }, b: { $ref: '#item' }, c: { $ref: '#/properties/a' } },
      definitions: { 'a/b': { type: 'integer' } },
      $defs: { Item: { $anchor: 'item', type: 'string' } },
    };
    expect(schemaToTypeScript(schema, 'T')).toBe(
      ['export type T = {', '  a?: AB;', '  b?: Item;', '  c?: A;', '};', '', 'export type AB = number;', '', 'export type Item = string;', '', 'export type A = AB;', ''].join('\n'),
    );
  });

  it('keeps names unique across schemas, and shares a $defs type two schemas hold alike', () => {
    const day: JsonSchema = { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] };
    const generator = new TypeGenerator();
    expect(generator.add('forecast', { type: 'object', properties: { days: { type: 'array', items: { $ref: '#/$defs/Day' } } }, $defs: { Day: day } })).toBe('Forecast');
    expect(generator.add('history', { type: 'object', properties: { days: { type: 'array', items: { $ref: '#/$defs/Day' } } }, $defs: { Day: day } })).toBe('History');
    expect(generator.add('other', { $ref: '#/$defs/Day', $defs: { Day: { type: 'number' } } })).toBe('Other');
    expect(generator.add('forecast', { type: 'string' })).toBe('Forecast2');
    const text = generator.declarations();
    expect(text).toContain('export type Forecast = {\n  days?: Day[];\n};');
    expect(text).toContain('export type History = {\n  days?: Day[];\n};');
    expect(text).toContain('export type Other = Day2;');
    expect(text).toContain('export type Day2 = number;');
    expect(text.match(/export type Day = /g)).toHaveLength(1);
    expect(text).toContain('export type Forecast2 = string;');
  });

  it('makes identifiers of any name', () => {
    expect(typeName('add_bookmark')).toBe('AddBookmark');
    expect(typeName('weather.forecast-daily')).toBe('WeatherForecastDaily');
    expect(typeName('2fa')).toBe('_2fa');
    expect(typeName('string')).toBe('StringType');
    expect(typeName('Array')).toBe('ArrayType');
    expect(typeName('---')).toBe('Type');
    expect(typeName('ünïcode name')).toBe('NCodeName');
    expect(propertyKey('ok_1')).toBe('ok_1');
    expect(propertyKey('not ok')).toBe('"not ok"');
  });

  it('writes TypeScript that compiles, and types that admit the valid values and refuse others', () => {
    const generator = new TypeGenerator();
    generator.add('everything', {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'ends */ here' },
        count: { type: 'integer' },
        kind: { enum: ['a', 'b'] },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 },
        maybe: { type: ['string', 'null'] },
        map: { type: 'object', additionalProperties: { type: 'number' } },
        'odd-name': { const: 1 },
        either: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        both: { allOf: [{ type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }, { type: 'object', properties: { y: { type: 'number' } }, required: ['y'] }] },
        tree: { $ref: '#/$defs/Node' },
        external: { $ref: 'other.json' },
      },
      required: ['text', 'count'],
      additionalProperties: false,
      $defs: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
    });
    const diagnostics = typeCheck({
      'types.ts': generator.declarations(),
      'use.ts': [
        "import type { Everything, Node } from './types';",
        "export const ok: Everything = { text: 't', count: 1, kind: 'a', pair: ['p', 2], maybe: null, map: { a: 1 }, 'odd-name': 1, either: ['x'], both: { x: 1, y: 2 }, tree: { children: [{ children: [] }] }, external: { any: 'thing' } };",
        "export const node: Node = { children: [{}, { children: [{}] }] };",
        '// @ts-expect-error count is a number',
        "export const badCount: Everything = { text: 't', count: '1' };",
        '// @ts-expect-error text is required',
        'export const missing: Everything = { count: 1 };',
        '// @ts-expect-error a value outside the enum',
        "export const badKind: Everything = { text: 't', count: 1, kind: 'c' };",
        '// @ts-expect-error the tuple is closed',
        "export const longPair: Everything = { text: 't', count: 1, pair: ['p', 2, 3] };",
        '// @ts-expect-error no other property',
        "export const extra: Everything = { text: 't', count: 1, other: true };",
        '// @ts-expect-error both halves of allOf',
        "export const half: Everything = { text: 't', count: 1, both: { x: 1 } };",
      ].join('\n'),
    });
    expect(diagnostics).toEqual([]);
  });
});
