import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotEmpty,
  ArrayUnique,
  Equals,
  IsArray,
  IsBoolean,
  IsDate,
  IsDateString,
  IsDefined,
  IsDivisibleBy,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsISO8601,
  IsNegative,
  IsNotEmpty,
  IsNotIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  NotEquals,
  ValidateNested,
} from 'class-validator';
import { Description } from '../../../src/decorators/Description';
import { DefinitionError } from '../../../src/errors';
import type { Constructor } from '../../../src/metadata';
import { describeDto, schemaForDto } from '../../../src/schema';
import type { JsonSchema } from '../../../src/schema';

/** Every generated schema must compile where ajv is at its strictest. */
function compileStrict(schema: JsonSchema) {
  const ajv = new Ajv2020({ strict: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

function propertiesOf(dto: Constructor): Record<string, JsonSchema> {
  return schemaForDto(dto).properties as Record<string, JsonSchema>;
}

enum Unit {
  Celsius = 'c',
  Fahrenheit = 'f',
}

enum Level {
  Low = 1,
  Mid = 2,
  High = 3,
}

class Primitives {
  @IsString() name!: string;
  @IsNumber() ratio!: number;
  @IsInt() count!: number;
  @IsBoolean() enabled!: boolean;
}

class Numbers {
  @IsInt() @Min(1) @Max(14) days!: number;
  @IsNumber() @IsPositive() positive!: number;
  @IsNumber() @IsNegative() negative!: number;
  @Min(0) @Min(5) @Max(100) @Max(50) tightest!: number;
  @IsInt() @IsDivisibleBy(5) step!: number;
}

class Strings {
  @IsString() @MinLength(2) @MaxLength(10) code!: string;
  @IsString() @Length(3, 5) exact!: string;
  @Length(1) atLeastOne!: string;
  @IsString() @Matches(/^[a-z]+$/) lower!: string;
  @Matches('^x', 'u') prefixed!: string;
  @IsString() @IsNotEmpty() nonEmpty!: string;
  @IsString() @Matches(/a/) @Matches(/b/) both!: string;
}

class Formats {
  @IsEmail() email!: string;
  @IsUrl() homepage!: string;
  @IsUUID() id!: string;
  @IsDateString() when!: string;
  @IsISO8601() iso!: string;
  @IsDate() at!: Date;
}

class Enums {
  @IsEnum(Unit) unit!: Unit;
  @IsEnum(Level) level!: Level;
  @IsIn(['a', 'b']) letter!: string;
  @IsIn([1, 'one']) mixed!: number | string;
  @Equals('fixed') kind!: 'fixed';
  @NotEquals('bad') notBad!: string;
  @IsString() @IsNotIn(['x', 'y']) notXY!: string;
}

class Item {
  @IsString() label!: string;
}

class Arrays {
  @IsString({ each: true }) tags!: string[];
  @IsArray() @IsInt({ each: true }) @Min(0, { each: true }) @ArrayMinSize(1) @ArrayMaxSize(3) scores!: number[];
  @ArrayNotEmpty() @ArrayUnique() unique!: string[];
  @IsArray() anything!: unknown[];
  @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];
  @IsOptional() @Type(() => Date) dates?: Date[];
}

class Location {
  @IsNumber() @Min(-90) @Max(90) lat!: number;
  @IsNumber() @Min(-180) @Max(180) lon!: number;
}

class Trip {
  @ValidateNested() @Description('Where to start') from!: Location;
  @IsOptional() to?: Location;
  @IsObject() @Type(() => Location) via!: Location;
  @IsObject() meta!: Record<string, unknown>;
}

class TreeNode {
  @IsString() name!: string;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => TreeNode) children?: TreeNode[];
}

class Forest {
  @ValidateNested() tree!: TreeNode;
  @ValidateNested() other!: TreeNode;
}

class Person {
  @IsString() name!: string;
  // `| null` keeps design:type from naming Pair before it is declared; @Type() names it lazily.
  @IsOptional() @ValidateNested() @Type(() => Pair) partner?: Pair | null;
}

class Pair {
  @ValidateNested() first!: Person;
  @ValidateNested() second!: Person;
}

class Family {
  @ValidateNested() parents!: Pair;
}

class Optionals {
  @IsString() required!: string;
  @IsOptional() @IsString() optional?: string;
  @IsOptional() @IsDefined() @IsString() forcedBack!: string;
}

class Fallbacks {
  @IsOptional() text?: string;
  @IsOptional() amount?: number;
  @IsOptional() flag?: boolean;
  @IsOptional() list?: string[];
  @IsOptional() when?: Date;
  @IsOptional() where?: Location;
  @IsOptional() anything?: string | number;
  @Description('Only a description') described!: string;
  @Allow() allowed!: unknown;
  @IsDefined() defined!: unknown;
  @IsNotEmpty() notEmpty!: unknown;
}

class Base {
  @IsString() @Description('From the base') id!: string;
  @IsOptional() @IsInt() version?: number;
}

class Derived extends Base {
  @IsBoolean() active!: boolean;
}

class Overriding extends Base {
  @IsString() @MinLength(3) @Description('Overridden') declare id: string;
}

class Ordered {
  @Description('first') a!: string;
  @IsString() b!: string;
  @IsString() @Description('third') c!: string;
  @Description('fourth') d!: string;
  @IsInt() e!: number;
}

class Empty {}

const ALL: Constructor[] = [
  Primitives, Numbers, Strings, Formats, Enums, Item, Arrays, Location, Trip, TreeNode, Forest,
  Person, Pair, Family, Optionals, Fallbacks, Base, Derived, Overriding, Ordered, Empty,
];

describe('schemaForDto', () => {
  it('produces a closed object schema without $schema', () => {
    expect(schemaForDto(Primitives)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        ratio: { type: 'number' },
        count: { type: 'integer' },
        enabled: { type: 'boolean' },
      },
      required: ['name', 'ratio', 'count', 'enabled'],
      additionalProperties: false,
    });
    expect(schemaForDto(Primitives)).not.toHaveProperty('$schema');
  });

  it('omits required when every property is optional, keeps empty properties', () => {
    expect(schemaForDto(Empty)).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('compiles every generated schema with strict Ajv2020', () => {
    for (const dto of ALL) expect(() => compileStrict(schemaForDto(dto))).not.toThrow();
  });

  it('is cached per class and frozen', () => {
    const schema = schemaForDto(Primitives);
    expect(schemaForDto(Primitives)).toBe(schema);
    expect(describeDto(Primitives).schema).toBe(schema);
    expect(Object.isFrozen(schema)).toBe(true);
    expect(Object.isFrozen(schema.properties)).toBe(true);
  });

  it('maps numeric bounds, keeping the tightest', () => {
    expect(propertiesOf(Numbers)).toEqual({
      days: { type: 'integer', minimum: 1, maximum: 14 },
      positive: { type: 'number', exclusiveMinimum: 0 },
      negative: { type: 'number', exclusiveMaximum: 0 },
      tightest: { type: 'number', minimum: 5, maximum: 50 },
      step: { type: 'integer', multipleOf: 5 },
    });
  });

  it('maps string lengths, patterns and non-emptiness', () => {
    expect(propertiesOf(Strings)).toEqual({
      code: { type: 'string', minLength: 2, maxLength: 10 },
      exact: { type: 'string', minLength: 3, maxLength: 5 },
      atLeastOne: { type: 'string', minLength: 1 },
      lower: { type: 'string', pattern: '^[a-z]+$' },
      prefixed: { type: 'string', pattern: '^x' },
      nonEmpty: { type: 'string', minLength: 1 },
      both: { type: 'string', pattern: 'a', allOf: [{ pattern: 'b' }] },
    });
  });

  it('maps string formats, and Date to a date-time string', () => {
    expect(propertiesOf(Formats)).toEqual({
      email: { type: 'string', format: 'email' },
      homepage: { type: 'string', format: 'uri' },
      id: { type: 'string', format: 'uuid' },
      when: { type: 'string', format: 'date-time' },
      iso: { type: 'string', format: 'date-time' },
      at: { type: 'string', format: 'date-time' },
    });
  });

  it('maps string and numeric enums, IsIn, Equals and their negations', () => {
    expect(propertiesOf(Enums)).toEqual({
      unit: { type: 'string', enum: ['c', 'f'] },
      level: { type: 'integer', enum: [1, 2, 3] },
      letter: { type: 'string', enum: ['a', 'b'] },
      mixed: { enum: [1, 'one'] },
      kind: { type: 'string', const: 'fixed' },
      notBad: { type: 'string', not: { const: 'bad' } },
      notXY: { type: 'string', not: { enum: ['x', 'y'] } },
    });
  });

  it('maps arrays: each-constraints become items, sizes, uniqueness, element classes from @Type', () => {
    const item = schemaForDto(Item);
    expect(propertiesOf(Arrays)).toEqual({
      tags: { type: 'array', items: { type: 'string' } },
      scores: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'integer', minimum: 0 } },
      unique: { type: 'array', minItems: 1, uniqueItems: true },
      anything: { type: 'array' },
      items: { type: 'array', items: item },
      dates: { type: 'array', items: { type: 'string', format: 'date-time' } },
    });
  });

  it('inlines nested DTOs from design:type or @Type, keeping descriptions at the use site', () => {
    const location = schemaForDto(Location);
    expect(propertiesOf(Trip)).toEqual({
      from: { ...location, description: 'Where to start' },
      to: location,
      via: location,
      meta: { type: 'object' },
    });
    expect(schemaForDto(Trip).required).toEqual(['from', 'via', 'meta']);
    expect(Object.keys(propertiesOf(Trip).from)).toEqual(['type', 'description', 'properties', 'required', 'additionalProperties']);
  });

  it('refers back to the root with $ref "#" for self-recursive DTOs', () => {
    expect(schemaForDto(TreeNode)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#' } },
      },
      required: ['name'],
      additionalProperties: false,
    });
    const validate = compileStrict(schemaForDto(TreeNode));
    expect(validate({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] })).toBe(true);
    expect(validate({ name: 'a', children: [{ name: 'b', children: [{ name: 1 }] }] })).toBe(false);
  });

  it('moves recursive nested DTOs to $defs and references them everywhere', () => {
    const schema = schemaForDto(Forest);
    expect(schema.properties).toEqual({ tree: { $ref: '#/$defs/TreeNode' }, other: { $ref: '#/$defs/TreeNode' } });
    expect(schema.$defs).toEqual({
      TreeNode: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/$defs/TreeNode' } },
        },
        required: ['name'],
        additionalProperties: false,
      },
    });
    const validate = compileStrict(schema);
    expect(validate({ tree: { name: 'a', children: [{ name: 'b' }] }, other: { name: 'c' } })).toBe(true);
    expect(validate({ tree: { name: 'a', children: [{ name: 'b', extra: 1 }] }, other: { name: 'c' } })).toBe(false);
  });

  it('handles mutual recursion through several classes', () => {
    const schema = schemaForDto(Family);
    // Pair is the class the cycle returns to; Person is inlined inside it.
    expect(schema.properties).toEqual({ parents: { $ref: '#/$defs/Pair' } });
    const inlinePerson = {
      type: 'object',
      properties: { name: { type: 'string' }, partner: { $ref: '#/$defs/Pair' } },
      required: ['name'],
      additionalProperties: false,
    };
    expect(schema.$defs).toEqual({
      Pair: {
        type: 'object',
        properties: { first: inlinePerson, second: inlinePerson },
        required: ['first', 'second'],
        additionalProperties: false,
      },
    });
    const validate = compileStrict(schema);
    const person = { name: 'x', partner: { first: { name: 'y' }, second: { name: 'z' } } };
    expect(validate({ parents: { first: person, second: { name: 'w' } } })).toBe(true);
    expect(validate({ parents: { first: { name: 'y', partner: { first: { name: 2 }, second: { name: 'z' } } }, second: person } })).toBe(false);
  });

  it('treats everything as required unless @IsOptional, and @IsDefined wins over @IsOptional', () => {
    expect(schemaForDto(Optionals).required).toEqual(['required', 'forcedBack']);
  });

  it('falls back to design:type, and accepts any value when the type is unknown', () => {
    expect(propertiesOf(Fallbacks)).toEqual({
      text: { type: 'string' },
      amount: { type: 'number' },
      flag: { type: 'boolean' },
      list: { type: 'array' },
      when: { type: 'string', format: 'date-time' },
      where: schemaForDto(Location),
      anything: {},
      described: { type: 'string', description: 'Only a description' },
      allowed: {},
      defined: { not: { type: 'null' } },
      notEmpty: { not: { enum: [null, ''] } },
    });
    expect(schemaForDto(Fallbacks).required).toEqual(['described', 'allowed', 'defined', 'notEmpty']);
  });

  it('includes inherited properties, base class first, and honours overrides', () => {
    expect(schemaForDto(Derived)).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string', description: 'From the base' },
        version: { type: 'integer' },
        active: { type: 'boolean' },
      },
      required: ['id', 'active'],
      additionalProperties: false,
    });
    expect(propertiesOf(Overriding).id).toEqual({ type: 'string', description: 'Overridden', minLength: 3 });
    expect(Object.keys(propertiesOf(Overriding))).toEqual(['id', 'version']);
  });

  it('keeps declaration order, including description-only properties', () => {
    expect(Object.keys(propertiesOf(Ordered))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(schemaForDto(Ordered).required).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('schemaForDto definition errors', () => {
  it('rejects properties JSON cannot carry, naming class, property and fix', () => {
    class WithMap {
      @IsOptional() lookup?: Map<string, string>;
    }
    class WithFunction {
      @IsDefined() callback!: () => void;
    }
    expect(() => schemaForDto(WithMap)).toThrow(DefinitionError);
    expect(() => schemaForDto(WithMap)).toThrow(/WithMap\.lookup is a Map.*Declare it as/);
    try {
      schemaForDto(WithFunction);
      throw new Error('expected a DefinitionError');
    } catch (error) {
      expect(error).toBeInstanceOf(DefinitionError);
      expect((error as DefinitionError).code).toBe('UNSUPPORTED_PROPERTY_TYPE');
      expect((error as DefinitionError).message).toMatch(/WithFunction\.callback is a Function/);
    }
  });

  it('rejects @ValidateNested on an array without @Type', () => {
    class NoElementType {
      @ValidateNested({ each: true }) items!: Item[];
    }
    expect(() => schemaForDto(NoElementType)).toThrow(/NoElementType\.items\[\] has @ValidateNested\(\).*@Type\(\(\) => ItemClass\)/);
  });

  it('rejects value lists no value satisfies together', () => {
    class Disjoint {
      @IsIn(['a', 'b']) @IsIn(['c']) letter!: string;
    }
    expect(() => schemaForDto(Disjoint)).toThrow(/Disjoint\.letter has value lists/);
  });

  it('accepts a JSON-incompatible design type when a decorator states the JSON type', () => {
    class Tagged {
      @IsObject() lookup!: Map<string, string>;
    }
    expect(propertiesOf(Tagged).lookup).toEqual({ type: 'object' });
  });

  it('rejects decorators of two different types on one property', () => {
    class Conflicting {
      @IsString() @IsInt() value!: string;
    }
    expect(() => schemaForDto(Conflicting)).toThrow(/Conflicting\.value has validators for both string and integer/);
  });
});
