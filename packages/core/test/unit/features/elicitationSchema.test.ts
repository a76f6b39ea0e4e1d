import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  Equals,
  IsAlpha,
  IsArray,
  IsBoolean,
  IsDate,
  IsDefined,
  IsDivisibleBy,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNegative,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  MinLength,
  NotEquals,
  ValidateNested,
} from 'class-validator';
import { Description, EnumTitles, Title } from '../../../src/decorators';
import { DefinitionError, InvalidClientResponseError } from '../../../src/errors';
import { elicitationSchemaFor, readElicitResult } from '../../../src/features/elicitationSchema';
import type { Constructor } from '../../../src/metadata';
import { schemaFile } from '../../../../../test-support/specSchema';


type Node = Record<string, any>;

/** The spec's own definitions, and a copy that also forbids keywords the subset does not list. */
interface Oracle {
  lax: ValidateFunction;
  strict: ValidateFunction;
}

const oracles = new Map<string, Oracle>();

/**
 * The spec's elicitation schemas leave additional keywords open, so `pattern` or a
 * 2025-11-25-only `default` would pass them. The strict copy closes every object schema of
 * the subset (additionalProperties: false) to catch keywords a client is not told about.
 */
function oracle(version: string): Oracle {
  let found = oracles.get(version);
  if (found) return found;
  const spec = JSON.parse(readFileSync(schemaFile(version), 'utf8')) as Node;
  const draft07 = String(spec.$schema).includes('draft-07');
  const defsKey = draft07 ? 'definitions' : '$defs';
  const strictSpec = structuredClone(spec);
  const defs = strictSpec[defsKey] as Node;
  for (const name of Object.keys(defs)) {
    if (/^(String|Number|Boolean|Enum|LegacyTitledEnum|(Untitled|Titled)(Single|Multi)SelectEnum)Schema$/.test(name)) {
      close(defs[name]);
    }
  }
  const params = draft07 ? defs.ElicitRequest.properties.params : defs.ElicitRequestFormParams;
  close(params.properties.requestedSchema);

  const ajv = draft07 ? new Ajv({ strict: false, allErrors: true }) : new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv as Ajv);
  ajv.addSchema(spec, 'lax');
  ajv.addSchema(strictSpec, 'strict');
  found = {
    lax: ajv.compile({ $ref: `lax#/${defsKey}/ElicitRequest` }),
    strict: ajv.compile({ $ref: `strict#/${defsKey}/ElicitRequest` }),
  };
  oracles.set(version, found);
  return found;
}

function close(node: Node): void {
  if (node === null || typeof node !== 'object') return;
  if (node.properties && !('additionalProperties' in node)) node.additionalProperties = false;
  for (const child of Object.values((node.properties ?? {}) as Node)) close(child);
  if (node.items) close(node.items);
}

function request(requestedSchema: unknown) {
  return { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: { message: 'x', requestedSchema } };
}

/** Problems the version's ElicitRequest (spec as written, then closed) finds in a request for the schema. */
function specProblems(version: string, requestedSchema: unknown): string[] {
  const { lax, strict } = oracle(version);
  const problems: string[] = [];
  for (const [name, validate] of [['spec', lax], ['closed spec', strict]] as const) {
    if (!validate(request(requestedSchema))) {
      problems.push(`${name}: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join(', ')}`);
    }
  }
  return problems;
}

function definitionError(build: () => unknown): DefinitionError {
  try {
    build();
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error('expected a DefinitionError');
}

async function clientError(read: Promise<unknown>): Promise<InvalidClientResponseError> {
  try {
    await read;
  } catch (error) {
    if (error instanceof InvalidClientResponseError) return error;
    throw error;
  }
  throw new Error('expected an InvalidClientResponseError');
}

enum Color {
  Red = 'red',
  Green = 'green',
  Blue = 'blue',
}

enum Channel {
  Email = 'email',
  Sms = 'sms',
}

class Profile {
  @Title('Name') @Description('Your full name') @IsString() @Length(1, 80) name!: string;
  @IsEmail() email!: string;
  @IsOptional() @IsUrl() homepage?: string;
  @IsString() @Length(2, 2) country = 'FR';
  @IsDate() birthday!: Date;
  @IsInt() @Min(0) @Max(150) age!: number;
  @IsNumber() @Min(0.5) ratio = 1;
  @IsBoolean() newsletter = true;
  @IsIn(['s', 'm', 'l']) size = 'm';
  @EnumTitles({ red: 'Red', green: 'Green' }) @IsEnum(Color) color: Color = Color.Red;
}

class Preferences {
  @Title('Topics')
  @IsArray()
  @IsIn(['news', 'sports', 'tech'], { each: true })
  @ArrayUnique()
  @ArrayMinSize(1)
  @ArrayMaxSize(2)
  topics: string[] = ['news'];

  @EnumTitles({ email: 'E-mail', sms: 'Text message' })
  @IsOptional()
  @IsArray()
  @IsEnum(Channel, { each: true })
  channels?: Channel[];
}

class IntegerBounds {
  @IsInt() @IsPositive() count!: number;
  @IsInt() @IsNegative() @Min(-5) below!: number;
  @IsInt() @Min(3) @IsPositive() both!: number;
}

class LabelBase {
  @Title('Label') @IsString() label!: string;
  @EnumTitles({ s: 'Small' }) @IsIn(['s', 'm']) size!: string;
}
class LabelChild extends LabelBase {
  @IsBoolean() on = false;
}

class NeedsArguments {
  @IsString() name: string;
  constructor(init: { name: string }) {
    this.name = init.name;
  }
}

class Choices {
  @IsString() @IsNotEmpty() @IsIn(['', 'a', 'bb']) pick!: string;
}

class NonPrimitiveDefaults {
  @IsDate() when: Date = new Date(0);
  @IsNumber() measure = Number.NaN;
  @IsOptional() @IsString() note?: string;
}

class Empty {}

describe('elicitationSchemaFor', () => {
  it('builds a 2025-11-25 form with titles, descriptions, bounds, formats, defaults and titled enums', () => {
    expect(elicitationSchemaFor(Profile, '2025-11-25')).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name', description: 'Your full name', minLength: 1, maxLength: 80 },
        email: { type: 'string', format: 'email' },
        homepage: { type: 'string', format: 'uri' },
        country: { type: 'string', minLength: 2, maxLength: 2, default: 'FR' },
        birthday: { type: 'string', format: 'date-time' },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        ratio: { type: 'number', minimum: 0.5, default: 1 },
        newsletter: { type: 'boolean', default: true },
        size: { type: 'string', enum: ['s', 'm', 'l'], default: 'm' },
        color: {
          type: 'string',
          // A value without a title is labelled with itself.
          oneOf: [
            { const: 'red', title: 'Red' },
            { const: 'green', title: 'Green' },
            { const: 'blue', title: 'blue' },
          ],
          default: 'red',
        },
      },
      required: ['name', 'email', 'country', 'birthday', 'age', 'ratio', 'newsletter', 'size', 'color'],
    });
  });

  it('puts type, title and description first', () => {
    const name = (elicitationSchemaFor(Profile, '2025-11-25').properties as Node).name;
    expect(Object.keys(name)).toEqual(['type', 'title', 'description', 'minLength', 'maxLength']);
  });

  it('builds a 2025-06-18 form: legacy enumNames, and defaults only on booleans', () => {
    const schema = elicitationSchemaFor(Profile, '2025-06-18');
    const properties = schema.properties as Node;
    expect(properties.color).toEqual({ type: 'string', enum: ['red', 'green', 'blue'], enumNames: ['Red', 'Green', 'blue'] });
    expect(properties.size).toEqual({ type: 'string', enum: ['s', 'm', 'l'] });
    expect(properties.country).toEqual({ type: 'string', minLength: 2, maxLength: 2 });
    expect(properties.ratio).toEqual({ type: 'number', minimum: 0.5 });
    expect(properties.newsletter).toEqual({ type: 'boolean', default: true });
    expect(properties.name).toEqual({ type: 'string', title: 'Name', description: 'Your full name', minLength: 1, maxLength: 80 });
  });

  it('uses the 2025-06-18 subset before 2025-11-25 and the 2025-11-25 subset after it', () => {
    expect(elicitationSchemaFor(Profile, '2025-03-26')).toBe(elicitationSchemaFor(Profile, '2025-06-18'));
    expect(elicitationSchemaFor(Profile, '2026-07-28')).toBe(elicitationSchemaFor(Profile, '2025-11-25'));
    expect(elicitationSchemaFor(Profile, '2025-06-18')).not.toEqual(elicitationSchemaFor(Profile, '2025-11-25'));
  });

  it('caches per class and version, and freezes what it returns', () => {
    const schema = elicitationSchemaFor(Profile, '2025-11-25');
    expect(elicitationSchemaFor(Profile, '2025-11-25')).toBe(schema);
    expect(Object.isFrozen(schema)).toBe(true);
    expect(Object.isFrozen((schema.properties as Node).color.oneOf[0])).toBe(true);
  });

  it('turns arrays of string choices into multi-select (2025-11-25), titled or not', () => {
    expect(elicitationSchemaFor(Preferences, '2025-11-25')).toEqual({
      type: 'object',
      properties: {
        topics: {
          type: 'array',
          title: 'Topics',
          minItems: 1,
          maxItems: 2,
          items: { type: 'string', enum: ['news', 'sports', 'tech'] },
          default: ['news'],
        },
        channels: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'email', title: 'E-mail' },
              { const: 'sms', title: 'Text message' },
            ],
          },
        },
      },
      required: ['topics'],
    });
  });

  it('refuses multi-select for 2025-06-18, saying which version has it', () => {
    const error = definitionError(() => elicitationSchemaFor(Preferences, '2025-06-18'));
    expect(error.code).toBe('UNSUPPORTED_PROPERTY_TYPE');
    expect(error.message).toMatch(/^Preferences\.topics cannot be asked for by elicitation: it is a multiple-choice array/);
    expect(error.message).toContain('protocol 2025-11-25');
  });

  it('turns exclusive integer bounds into inclusive ones', () => {
    expect(elicitationSchemaFor(IntegerBounds, '2025-11-25').properties).toEqual({
      count: { type: 'integer', minimum: 1 },
      below: { type: 'integer', minimum: -5, maximum: -1 },
      both: { type: 'integer', minimum: 3 },
    });
  });

  it('finds titles declared on a base class', () => {
    expect(elicitationSchemaFor(LabelChild, '2025-11-25').properties).toEqual({
      label: { type: 'string', title: 'Label' },
      size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'm', title: 'm' }] },
      on: { type: 'boolean', default: false },
    });
  });

  it('builds without defaults when the constructor fails without arguments', () => {
    expect(elicitationSchemaFor(NeedsArguments, '2025-11-25')).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
  });

  it('ignores initializers a form cannot show (objects, NaN, undefined)', () => {
    expect(elicitationSchemaFor(NonPrimitiveDefaults, '2025-11-25').properties).toEqual({
      when: { type: 'string', format: 'date-time' },
      measure: { type: 'number' },
      note: { type: 'string' },
    });
  });

  it('labels values named like Object.prototype members with themselves', () => {
    class Keywords {
      @EnumTitles({ other: 'Other' }) @IsIn(['constructor', 'toString', 'other']) word!: string;
    }
    expect((elicitationSchemaFor(Keywords, '2025-06-18').properties as Node).word.enumNames).toEqual(['constructor', 'toString', 'Other']);
  });

  it('offers only the enum values its length bounds allow', () => {
    expect((elicitationSchemaFor(Choices, '2025-11-25').properties as Node).pick).toEqual({ type: 'string', enum: ['a', 'bb'] });
  });

  it('accepts a DTO without properties', () => {
    expect(elicitationSchemaFor(Empty, '2025-06-18')).toEqual({ type: 'object', properties: {} });
  });

  describe.each(['2025-06-18', '2025-11-25', '2026-07-28'])('against the %s schema', (version) => {
    const dtos: Constructor[] = [Profile, IntegerBounds, LabelChild, NeedsArguments, Choices, NonPrimitiveDefaults, Empty];
    if (version >= '2025-11-25') dtos.push(Preferences);

    it.each(dtos.map((dto) => [dto.name, dto]))('%s gives a valid ElicitRequest', (_name, dto) => {
      expect(specProblems(version, elicitationSchemaFor(dto, version))).toEqual([]);
    });

    it('the closed copy of the spec catches keywords the spec leaves open', () => {
      const withPattern = { type: 'object', properties: { a: { type: 'string', pattern: '^x$' } } };
      expect(oracle(version).lax(request(withPattern))).toBe(true);
      expect(oracle(version).strict(request(withPattern))).toBe(false);
      const withExtra = { type: 'object', properties: {}, additionalProperties: false };
      expect(oracle(version).strict(request(withExtra))).toBe(false);
    });
  });

  it('the closed 2025-06-18 spec rejects what only 2025-11-25 allows', () => {
    const stringDefault = { type: 'object', properties: { a: { type: 'string', default: 'x' } } };
    const titled = { type: 'object', properties: { a: { type: 'string', oneOf: [{ const: 'x', title: 'X' }] } } };
    expect(specProblems('2025-11-25', stringDefault)).toEqual([]);
    expect(oracle('2025-06-18').strict(request(stringDefault))).toBe(false);
    expect(oracle('2025-06-18').strict(request(titled))).toBe(false);
  });

  describe('refuses what elicitation cannot ask for', () => {
    class Address {
      @IsString() city!: string;
    }
    class Nested {
      @ValidateNested() @Type(() => Address) address!: Address;
    }
    class Untyped {
      @IsDefined() anything: unknown;
    }
    class Strings {
      @IsArray() @IsString({ each: true }) names!: string[];
    }
    class Slug {
      @IsString() @Matches(/^[a-z]+$/) slug!: string;
    }
    enum Level {
      Low = 1,
      High = 2,
    }
    class Numeric {
      @IsEnum(Level) level!: Level;
    }
    class Uuid {
      @IsUUID() id!: string;
    }
    class Step {
      @IsInt() @IsDivisibleBy(5) step!: number;
    }
    class Price {
      @IsNumber() @IsPositive() price!: number;
    }
    class NotRoot {
      @IsString() @NotEquals('root') user!: string;
    }
    class Fixed {
      @Equals('yes') confirm!: string;
    }
    class Flag {
      @IsIn([true]) agreed!: boolean;
    }
    class NoChoice {
      @IsIn(['a']) @MinLength(3) pick!: string;
    }

    it.each([
      ['nested objects', Nested, 'Nested.address', /it is a nested object/],
      ['values of no single type', Untyped, 'Untyped.anything', /has no single JSON type/],
      ['arrays of free strings', Strings, 'Strings.names', /array of something other than string choices/],
      ['patterns', Slug, 'Slug.slug', /has a pattern \(@Matches\), which a form could not enforce/],
      ['numeric enums', Numeric, 'Numeric.level', /is a numeric enum/],
      ['formats outside the list', Uuid, 'Uuid.id', /format "uuid"; elicitation strings allow only email, uri, date and date-time/],
      ['divisors', Step, 'Step.step', /a divisor \(@IsDivisibleBy\)/],
      ['exclusive bounds on non-integers', Price, 'Price.price', /exclusive lower bound \(@IsPositive\)/],
      ['excluded values', NotRoot, 'NotRoot.user', /an excluded value/],
      ['fixed values', Fixed, 'Fixed.confirm', /a fixed value \(@Equals\)/],
      ['boolean enums', Flag, 'Flag.agreed', /boolean limited to some values/],
      ['enums whose bounds exclude every value', NoChoice, 'NoChoice.pick', /no value that both its list and its length bounds allow/],
    ] as const)('%s', (_what, dto, where, problem) => {
      for (const version of ['2025-06-18', '2025-11-25']) {
        const error = definitionError(() => elicitationSchemaFor(dto, version));
        expect(error.code).toBe('UNSUPPORTED_PROPERTY_TYPE');
        expect(error.message.startsWith(`${where} cannot be asked for by elicitation: it `)).toBe(true);
        expect(error.message).toMatch(problem);
        expect(error.message).toContain(`Elicitation (protocol ${version}) asks for a flat object`);
      }
    });
  });

  describe('checks the declarations it reads', () => {
    it('rejects @EnumTitles naming a value the property does not have', () => {
      class Typo {
        @EnumTitles({ red: 'Red', gren: 'Green' }) @IsEnum(Color) color!: Color;
      }
      const error = definitionError(() => elicitationSchemaFor(Typo, '2025-11-25'));
      expect(error.code).toBe('INVALID_OPTION');
      expect(error.message).toBe('Typo.color has @EnumTitles for "gren", which is not one of its values ("red", "green", "blue").');
    });

    it('rejects @EnumTitles on a property that is not a string enum', () => {
      class Plain {
        @EnumTitles({ a: 'A' }) @IsString() text!: string;
      }
      class Count {
        @EnumTitles({ a: 'A' }) @IsInt() n!: number;
      }
      for (const dto of [Plain, Count]) {
        const error = definitionError(() => elicitationSchemaFor(dto, '2025-11-25'));
        expect(error.code).toBe('INVALID_OPTION');
        expect(error.message).toMatch(/has @EnumTitles but is not a string enum/);
      }
    });

    it('rejects an initializer the property\'s own validators reject', () => {
      class BadDefault {
        @IsIn(['a', 'b']) choice = 'c';
      }
      const error = definitionError(() => elicitationSchemaFor(BadDefault, '2025-06-18'));
      expect(error.code).toBe('INVALID_OPTION');
      expect(error.message).toMatch(/^BadDefault\.choice starts as "c", which its own validators reject \(.*must be one of "a", "b"/);
    });
  });
});

class Signup {
  @IsString() @IsAlpha() nickname!: string;
  @IsDate() birthday!: Date;
  @IsOptional() @IsInt() @Min(0) age?: number;
}

class AllOptional {
  @IsOptional() @IsBoolean() subscribe?: boolean;
}

describe('readElicitResult', () => {
  it('converts accepted content into a DTO instance', async () => {
    const result = await readElicitResult(Signup, {
      action: 'accept',
      content: { nickname: 'ada', birthday: '1815-12-10T00:00:00.000Z', age: 36 },
    });
    expect(result.action).toBe('accept');
    if (result.action !== 'accept') return;
    expect(result.content).toBeInstanceOf(Signup);
    expect(result.content.birthday).toBeInstanceOf(Date);
    expect(result.content.birthday.toISOString()).toBe('1815-12-10T00:00:00.000Z');
    expect(result.content.age).toBe(36);
  });

  it('reads multi-select answers as string arrays', async () => {
    const result = await readElicitResult(Preferences, { action: 'accept', content: { topics: ['news', 'tech'] } });
    expect(result).toEqual({ action: 'accept', content: expect.any(Preferences) });
    if (result.action === 'accept') expect(result.content.topics).toEqual(['news', 'tech']);
    const error = await clientError(readElicitResult(Preferences, { action: 'accept', content: { topics: ['news', 'news'] } }));
    expect(error.message).toContain('"topics": must NOT have duplicate items');
  });

  it('passes decline and cancel through, ignoring any content', async () => {
    await expect(readElicitResult(Signup, { action: 'decline' })).resolves.toEqual({ action: 'decline' });
    await expect(readElicitResult(Signup, { action: 'cancel', content: { junk: 1 } })).resolves.toEqual({ action: 'cancel' });
  });

  it('treats accepted content that is absent as an empty form', async () => {
    const result = await readElicitResult(AllOptional, { action: 'accept' });
    expect(result).toEqual({ action: 'accept', content: expect.any(AllOptional) });
    const error = await clientError(readElicitResult(Signup, { action: 'accept' }));
    expect(error.message).toContain('missing required property "nickname"');
  });

  it('rejects content the DTO rejects, including checks only class-validator makes', async () => {
    const error = await clientError(
      readElicitResult(Signup, { action: 'accept', content: { nickname: 'ada99', birthday: '1815-12-10T00:00:00Z', extra: true } }),
    );
    expect(error).toBeInstanceOf(InvalidClientResponseError);
    expect(error.code).toBe('INVALID_CLIENT_RESPONSE');
    expect(error.name).toBe('InvalidClientResponseError');
    // Every problem at once: the schema's, and class-validator's on the properties the schema let through.
    expect(error.message).toMatch(/^Invalid elicitation result from the client: the content does not match Signup: unknown property "extra"; "nickname": nickname must contain only letters \(a-zA-Z\); received \{"nickname"/);

    const lettersOnly = await clientError(
      readElicitResult(Signup, { action: 'accept', content: { nickname: 'ada99', birthday: '1815-12-10T00:00:00Z' } }),
    );
    expect(lettersOnly.message).toMatch(/"nickname": nickname must contain only letters/);
  });

  it.each([
    ['not an object', null, 'expected an object with "action"; received null'],
    ['an array', [{ action: 'accept' }], 'expected an object with "action"; received [{"action":"accept"}]'],
    ['an unknown action', { action: 'ok' }, '"action" must be accept, decline or cancel; received {"action":"ok"}'],
    ['no action', {}, '"action" must be accept, decline or cancel; received {}'],
    ['content that is not an object', { action: 'accept', content: ['ada'] }, 'an accepted answer needs an object "content"; received ["ada"]'],
    ['content that is a string', { action: 'accept', content: 'ada' }, 'an accepted answer needs an object "content"; received "ada"'],
  ])('rejects an answer with %s', async (_what, raw, message) => {
    const error = await clientError(readElicitResult(Signup, raw));
    expect(error.message).toBe(`Invalid elicitation result from the client: ${message}`);
  });

  it('truncates what it quotes', async () => {
    const error = await clientError(readElicitResult(Signup, { action: 'accept', content: 'x'.repeat(10_000) }));
    expect(error.message.length).toBeLessThan(450);
    expect(error.message.endsWith('…')).toBe(true);
  });
});
