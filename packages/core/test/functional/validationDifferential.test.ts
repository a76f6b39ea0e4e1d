/**
 * Differential test of argument validation against class-validator. For each decorator the
 * schema translates (with its defaults and common options), values from targeted generators
 * (mutated URLs, swapped schemes, hosts without a top-level domain, near-miss e-mails, dates
 * and UUIDs, astral characters and variation selectors, edge numbers) and fixed cases go
 * through a real tools/call, and the answer is compared with class-validator's own
 * `validate()` of the same arguments:
 *
 * - every value class-validator refuses must be refused (`isError`): a failure otherwise;
 * - values class-validator accepts and the tool refuses (the schema is stricter there) are
 *   counted and printed as a table, not failed: docs/guides/dtos-and-schemas.md lists them.
 *
 * The generators run with fixed seeds, so every run sends the same values.
 */
import 'reflect-metadata';
import fc from 'fast-check';
import { plainToInstance, Type } from 'class-transformer';
import {
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
  validate,
} from 'class-validator';
import { McpServer, Tool } from '@typemcp/core';
import type { Constructor } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SEED = 20_260_728;
/** Generated values per case, on top of the fixed ones. */
const RUNS = 150;

const sample = <T>(arbitrary: fc.Arbitrary<T>, seed: number, numRuns = RUNS): T[] => fc.sample(arbitrary, { seed, numRuns });
const concat = (...parts: fc.Arbitrary<string>[]): fc.Arbitrary<string> => fc.tuple(...parts).map((all) => all.join(''));
const oneOf = (...values: string[]): fc.Arbitrary<string> => fc.constantFrom(...values);
const hex = (length: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length, maxLength: length });

/** Characters a near miss is made of: separators, case changes, astral characters, variation selectors. */
const NOISE = ['', ':', '/', '//', '.', '..', '@', '-', '_', 'T', 't', 'Z', 'z', ' ', '\t', '\u{1F600}', '\uFE0F', '\uD83D', 'x', '0', '9', '%', '#', '?', '<', '[', 'é'];

/** A value with one edit: a character deleted, doubled or replaced, a piece inserted, or the case flipped. */
function mutated(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(base, fc.nat(), fc.constantFrom('delete', 'double', 'replace', 'insert', 'upper'), fc.constantFrom(...NOISE)).map(([s, at, edit, piece]) => {
    const i = s.length === 0 ? 0 : at % s.length;
    switch (edit) {
      case 'delete':
        return s.slice(0, i) + s.slice(i + 1);
      case 'double':
        return s.slice(0, i + 1) + s.slice(i);
      case 'replace':
        return s.slice(0, i) + piece + s.slice(i + 1);
      case 'insert':
        return s.slice(0, i) + piece + s.slice(i);
      default:
        return s.toUpperCase();
    }
  });
}

/** Well-formed candidates, and the same with one edit. */
const nearMisses = (base: fc.Arbitrary<string>, seed: number): string[] => [...sample(base, seed, RUNS / 2), ...sample(mutated(base), seed + 1, RUNS)];

// ---- generators -------------------------------------------------------------------------------

const schemes = oneOf('http', 'https', 'ftp', 'HTTP', 'Https', 'javascript', 'mailto', 'foo', 'file', 'ws', 'data', '');
const separators = oneOf('://', ':', ':/', '//', '', ':///');
const auths = oneOf('', '', '', 'user@', 'user:pass@', ':@', '@', 'us er@', 'a:b:c@');
const hosts = oneOf(
  'example.com',
  'sub.example.co.uk',
  'localhost',
  'x',
  'ex',
  '1.2.3.4',
  '256.1.1.1',
  '[::1]',
  '[2001:db8::1]',
  'a_b.com',
  '-a.com',
  'a-.com',
  'example.123',
  'example.c',
  'xn--p1ai',
  'a.xn--p1ai',
  'bücher.de',
  'exa<mple.com',
  'example.com.',
  `${'a'.repeat(64)}.com`,
  `${'a'.repeat(63)}.com`,
  'ex ample.com',
  '',
);
const ports = oneOf('', '', ':80', ':0', ':65535', ':65536', ':', ':abc', ':0080', ':3000');
const paths = oneOf('', '', '/', '/a/b', '/a b', '/a<b', '/x://y', '/@', '?q=1', '#frag', '/\u{1F600}', '/a?b#c', '/%zz');
const urls = concat(schemes, separators, auths, hosts, ports, paths);
const URL_CASES = ['javascript:alert(1)', 'foo:bar', 'mailto:a@b.c', 'http://x', 'http://localhost:3000', 'https://example.com', 'example.com', 'ftp://nope', `https://example.com/${'a'.repeat(2100)}`];

const locals = oneOf('a', 'a.b', '.a', 'a.', 'a..b', '"quoted"', '"a b"', 'a+b', 'a_b', 'ü', 'user', 'a'.repeat(64), 'a'.repeat(65), 'a b', "o'neil", '');
const domains = oneOf('b.c', 'b.co', 'example.com', '1.2.3.4', '[1.2.3.4]', 'example.123', 'xn--p1ai', 'a.xn--p1ai', 'localhost', '-a.com', 'a_b.com', 'b.c.', `${'d'.repeat(63)}.com`, `${'d'.repeat(64)}.com`, 'ex ample.com', 'bücher.de', '');
const emails = concat(locals, oneOf('@', '@', '@@', ''), domains);
const EMAIL_CASES = ['a@b.c', 'user@1.2.3.4', 'user@example.123', `${'a'.repeat(65)}@example.com`, 'ada@example.com', 'a@b', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(50)}.com`];

const uuids = concat(
  oneOf('', '', '', 'urn:uuid:', '{'),
  hex(8),
  oneOf('-', '-', ''),
  hex(4),
  oneOf('-'),
  fc.constantFrom(...'0123456789abcdefABCDEF'),
  hex(3),
  oneOf('-'),
  fc.constantFrom(...'0123456789abcdefABCDEF'),
  hex(3),
  oneOf('-'),
  hex(12),
  oneOf('', '', '', '}', '0'),
);
/** Well-formed UUIDs of every version and variant nibble, in either case. */
const wellFormedUuids = concat(
  hex(8),
  oneOf('-'),
  hex(4),
  oneOf('-'),
  fc.constantFrom(...'0123456789abcdef'),
  hex(3),
  oneOf('-'),
  fc.constantFrom(...'0123456789abcdefAB'),
  hex(3),
  oneOf('-'),
  hex(12),
);
const UUID_CASES = [
  'urn:uuid:123e4567-e89b-12d3-a456-426614174000',
  '123e4567-e89b-02d3-a456-426614174000',
  '123e4567-e89b-12d3-a456-426614174000',
  '123e4567-e89b-42d3-a456-426614174000',
  '123e4567-e89b-42d3-c456-426614174000',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
];

const dates = concat(
  oneOf('2024', '2023', '0000', '1900', '2000', '99999', '+2024', '24'),
  oneOf('-'),
  oneOf('01', '02', '12', '13', '00', '1'),
  oneOf('-'),
  oneOf('01', '28', '29', '30', '31', '32', '00'),
  oneOf('T', 'T', 't', ' ', '\t', ''),
  oneOf('00', '10', '23', '24'),
  oneOf(':00', ':59', ':60', '00', ''),
  oneOf(':00', ':59', ':60', ':60.5', ''),
  oneOf('', '', '.5', '.123', '.123456', ',5', '.'),
  oneOf('Z', 'Z', 'z', '+02:00', '+0200', '+02', '-23:59', '+24:00', '+02:60', '', '+02:'),
);
const DATE_CASES = [
  '2024-05-01t10:00:00Z',
  '2024-05-01T10:00:00z',
  '2024-05-01t10:00:00z',
  '2016-12-31T23:59:60Z',
  '2024-05-01T10:00:00+02',
  '2024-05-01T10:00:00Z',
  '2024-05-01 10:00:00+02:00',
  '2024-05-01',
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
];

/** Strings of astral characters, variation selectors, lone surrogates and ordinary letters. */
const texts = fc
  .array(fc.constantFrom('a', 'b', 'Z', '0', 'é', ' ', '\n', '\u{1F600}', '\u{1F44D}', '\uFE0F', '\uFE0E', '\uD83D', '\uDE00', ',', '@'), { maxLength: 7 })
  .map((parts) => parts.join(''));
const TEXT_CASES = ['', 'a', 'ab', 'abc', 'abcd', '\u{1F600}', '\u{1F600}\u{1F600}', '\u{1F600}\u{1F600}\u{1F600}', '\u{1F600}\u{1F600}\u{1F600}\u{1F600}', 'a\uFE0F', 'a\uFE0Fb\uFE0F', '\uFE0F', '\uFE0F\uFE0F', 'ab\uFE0F\uFE0F', '\u2764\uFE0F\u2764\uFE0F', '\uD83D'];

const numbers = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(0, 1, -1, 0.5, 1.5, 2.5, 3, 9, 10, 11, 0.1 + 0.2, 2 ** 53, 2 ** 53 + 2, 2 ** 60, 3 * 2 ** 60, 1e21, 3e21, -(2 ** 60), 1e300, 5e-324, Number.MAX_VALUE, 1.005, 12.345),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((x) => !Object.is(x, -0)),
);
const JSON_VALUES: Json[] = ['', 'a', 'abc', '1', 'true', 0, 1, -1, 1.5, 2 ** 53, 1e21, true, false, null, [], [1], ['a'], ['a', 'a'], [1, 'a'], {}, { a: 1 }];
const jsonValues = fc.oneof(numbers as fc.Arbitrary<Json>, texts as fc.Arbitrary<Json>, fc.constantFrom(...JSON_VALUES));

const arrays = fc.oneof(
  fc.array(fc.constantFrom<Json>('a', 'b', 'ab', '', 'a\uFE0F', '\u{1F600}', 1, null, 'ada@example.com', 'a@b.c'), { maxLength: 4 }),
  fc.constantFrom<Json>('a', 1, null, {}),
);

// ---- cases ------------------------------------------------------------------------------------

enum Color {
  Red = 'red',
  Blue = 'blue',
}
enum Level {
  Low,
  High,
}

interface Case {
  readonly name: string;
  readonly dto: Constructor;
  readonly values: readonly Json[];
  /** The framework converts with class-transformer's implicit conversion; the reference does too for Dates. */
  readonly convert?: boolean;
}

const cases: Case[] = [];
let seed = SEED;
const add = (name: string, dto: Constructor, fixed: readonly Json[], generated: readonly Json[], convert = false): void => {
  cases.push({ name, dto, values: [...new Map([...fixed, ...generated].map((v) => [JSON.stringify(v), v])).values()], convert });
};
const next = (): number => (seed += 101);

// Types
class StringDto { @IsString() value!: string; }
class IntDto { @IsInt() value!: number; }
class NumberDto { @IsNumber() value!: number; }
class DecimalsDto { @IsNumber({ maxDecimalPlaces: 2 }) value!: number; }
class BooleanDto { @IsBoolean() value!: boolean; }
class ArrayDto { @IsArray() value!: unknown[]; }
class ObjectDto { @IsObject() value!: Record<string, unknown>; }
add('@IsString()', StringDto, JSON_VALUES, sample(jsonValues, next()));
add('@IsInt()', IntDto, JSON_VALUES, sample(jsonValues, next()));
add('@IsNumber()', NumberDto, JSON_VALUES, sample(jsonValues, next()));
add('@IsNumber({ maxDecimalPlaces: 2 })', DecimalsDto, JSON_VALUES, sample(numbers, next()));
add('@IsBoolean()', BooleanDto, JSON_VALUES, sample(jsonValues, next()));
add('@IsArray()', ArrayDto, JSON_VALUES, sample(jsonValues, next()));
add('@IsObject()', ObjectDto, JSON_VALUES, sample(jsonValues, next()));

// Values
class EnumDto { @IsEnum(Color) value!: Color; }
class NumericEnumDto { @IsEnum(Level) value!: Level; }
class InDto { @IsIn(['a', 'b', 1]) value!: unknown; }
class EqualsDto { @Equals('x') value!: string; }
class NotEqualsDto { @IsString() @NotEquals('x') value!: string; }
class NotInDto { @IsString() @IsNotIn(['a', 'b']) value!: string; }
class NotEmptyDto { @IsNotEmpty() value!: unknown; }
class NotEmptyStringDto { @IsString() @IsNotEmpty() value!: string; }
class DefinedDto { @IsDefined() value!: unknown; }
class OptionalDto { @IsOptional() @IsString() value?: string; }
const VALUE_CASES: Json[] = ['red', 'blue', 'Red', 'Low', 'High', 0, 1, 2, 'a', 'b', 'x', '', null];
const valueLike = fc.constantFrom<Json>('red', 'blue', 'Red', 'RED', 'Low', 'High', 0, 1, 2, 'a', 'b', 'x', '', ' ', null, 1.0, '1', [], {}, ['a']);
add('@IsEnum(StringEnum)', EnumDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));
add('@IsEnum(NumericEnum)', NumericEnumDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));
add("@IsIn(['a', 'b', 1])", InDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));
add("@Equals('x')", EqualsDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));
add("@NotEquals('x')", NotEqualsDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));
add("@IsNotIn(['a', 'b'])", NotInDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));
add('@IsNotEmpty() (no type)', NotEmptyDto, JSON_VALUES, sample(fc.oneof(valueLike, texts), next()));
add('@IsString() @IsNotEmpty()', NotEmptyStringDto, JSON_VALUES, sample(texts, next()));
add('@IsDefined()', DefinedDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));
add('@IsOptional() @IsString()', OptionalDto, [...VALUE_CASES, ...JSON_VALUES], sample(valueLike, next(), 40));

// Numbers
class RangeDto { @IsNumber() @Min(0) @Max(10) value!: number; }
class PositiveDto { @IsNumber() @IsPositive() value!: number; }
class NegativeDto { @IsNumber() @IsNegative() value!: number; }
class DivisibleDto { @IsInt() @IsDivisibleBy(3) value!: number; }
class DivisibleNumberDto { @IsNumber() @IsDivisibleBy(2.5) value!: number; }
add('@Min(0) @Max(10)', RangeDto, JSON_VALUES, sample(numbers, next()));
add('@IsPositive()', PositiveDto, JSON_VALUES, sample(numbers, next()));
add('@IsNegative()', NegativeDto, JSON_VALUES, sample(numbers, next()));
add('@IsDivisibleBy(3)', DivisibleDto, JSON_VALUES, sample(numbers, next()));
add('@IsDivisibleBy(2.5)', DivisibleNumberDto, JSON_VALUES, sample(numbers, next()));

// Lengths and patterns
class MinLength1Dto { @IsString() @MinLength(1) value!: string; }
class MinLength3Dto { @IsString() @MinLength(3) value!: string; }
class MaxLength3Dto { @IsString() @MaxLength(3) value!: string; }
class LengthDto { @IsString() @Length(2, 4) value!: string; }
class LengthOneDto { @Length(1, 3) value!: string; }
class DotsDto { @Matches(/^.{1,3}$/) value!: string; }
class DotsUnicodeDto { @Matches(/^.{1,3}$/u) value!: string; }
class LettersDto { @Matches(/^[a-z]+$/) value!: string; }
class NonSpaceDto { @Matches(/^\S+$/) value!: string; }
class NotCommaDto { @Matches(/^[^,]{2}$/) value!: string; }
class CaseInsensitiveDto { @Matches(/^ab$/i) value!: string; }
class StringPatternDto { @Matches('^[a-z]{2,3}$', 'g') value!: string; }
add('@MinLength(1)', MinLength1Dto, [...TEXT_CASES, ...JSON_VALUES], sample(texts, next()));
add('@MinLength(3)', MinLength3Dto, [...TEXT_CASES, ...JSON_VALUES], sample(texts, next()));
add('@MaxLength(3)', MaxLength3Dto, [...TEXT_CASES, ...JSON_VALUES], sample(texts, next()));
add('@Length(2, 4)', LengthDto, [...TEXT_CASES, ...JSON_VALUES], sample(texts, next()));
add('@Length(1, 3) (no type)', LengthOneDto, [...TEXT_CASES, ...JSON_VALUES], sample(texts, next()));
add('@Matches(/^.{1,3}$/)', DotsDto, TEXT_CASES, sample(texts, next()));
add('@Matches(/^.{1,3}$/u)', DotsUnicodeDto, TEXT_CASES, sample(texts, next()));
add('@Matches(/^[a-z]+$/)', LettersDto, TEXT_CASES, sample(texts, next()));
add('@Matches(/^\\S+$/)', NonSpaceDto, TEXT_CASES, sample(texts, next()));
add('@Matches(/^[^,]{2}$/)', NotCommaDto, TEXT_CASES, sample(texts, next()));
add('@Matches(/^ab$/i)', CaseInsensitiveDto, [...TEXT_CASES, 'AB', 'Ab'], sample(texts, next()));
add("@Matches('^[a-z]{2,3}$', 'g')", StringPatternDto, TEXT_CASES, sample(texts, next()));

// Formats
class UrlDto { @IsUrl() value!: string; }
class UrlNoTldDto { @IsUrl({ require_tld: false }) value!: string; }
class UrlHttpsDto { @IsUrl({ protocols: ['https'], require_protocol: true }) value!: string; }
class EmailDto { @IsEmail() value!: string; }
class EmailDisplayDto { @IsEmail({ allow_display_name: true }) value!: string; }
class EmailNoTldDto { @IsEmail({ require_tld: false }) value!: string; }
class UuidDto { @IsUUID() value!: string; }
class UuidAllDto { @IsUUID('all') value!: string; }
class Uuid4Dto { @IsUUID('4') value!: string; }
class UuidListDto { @IsUUID(['4', '7']) value!: string; }
class IsoDto { @IsISO8601() value!: string; }
class IsoStrictDto { @IsISO8601({ strict: true }) value!: string; }
class DateStringDto { @IsDateString() value!: string; }
class DateDto { @IsDate() value!: Date; }
class DateTypedDto { @IsDate() @Type(() => Date) value!: Date; }
add('@IsUrl()', UrlDto, [...URL_CASES, ...JSON_VALUES], nearMisses(urls, next()));
add('@IsUrl({ require_tld: false })', UrlNoTldDto, URL_CASES, nearMisses(urls, next()));
add("@IsUrl({ protocols: ['https'], require_protocol: true })", UrlHttpsDto, URL_CASES, nearMisses(urls, next()));
add('@IsEmail()', EmailDto, [...EMAIL_CASES, ...JSON_VALUES], nearMisses(emails, next()));
add('@IsEmail({ allow_display_name: true })', EmailDisplayDto, [...EMAIL_CASES, 'Ada <ada@example.com>'], nearMisses(emails, next()));
add('@IsEmail({ require_tld: false })', EmailNoTldDto, EMAIL_CASES, nearMisses(emails, next()));
const uuidValues = (): string[] => [...nearMisses(uuids, next()), ...sample(wellFormedUuids, next())];
add('@IsUUID()', UuidDto, [...UUID_CASES, ...JSON_VALUES], uuidValues());
add("@IsUUID('all')", UuidAllDto, UUID_CASES, uuidValues());
add("@IsUUID('4')", Uuid4Dto, UUID_CASES, uuidValues());
add("@IsUUID(['4', '7'])", UuidListDto, UUID_CASES, uuidValues());
add('@IsISO8601()', IsoDto, [...DATE_CASES, ...JSON_VALUES], nearMisses(dates, next()));
add('@IsISO8601({ strict: true })', IsoStrictDto, DATE_CASES, nearMisses(dates, next()));
add('@IsDateString()', DateStringDto, DATE_CASES, nearMisses(dates, next()));
add('@IsDate()', DateDto, [...DATE_CASES, ...JSON_VALUES], nearMisses(dates, next()), true);
add('@IsDate() @Type(() => Date)', DateTypedDto, DATE_CASES, nearMisses(dates, next()));

// Arrays
class MinSizeDto { @ArrayMinSize(1) value!: unknown[]; }
class MaxSizeDto { @ArrayMaxSize(2) value!: unknown[]; }
class NotEmptyArrayDto { @ArrayNotEmpty() value!: unknown[]; }
class UniqueDto { @ArrayUnique() value!: unknown[]; }
class EachStringDto { @IsString({ each: true }) value!: string[]; }
class EachEmailDto { @IsEmail({}, { each: true }) value!: string[]; }
class EachMinLengthDto { @IsString({ each: true }) @MinLength(2, { each: true }) value!: string[]; }
add('@ArrayMinSize(1)', MinSizeDto, JSON_VALUES, sample(arrays, next(), 60));
add('@ArrayMaxSize(2)', MaxSizeDto, JSON_VALUES, sample(arrays, next(), 60));
add('@ArrayNotEmpty()', NotEmptyArrayDto, JSON_VALUES, sample(arrays, next(), 60));
add('@ArrayUnique()', UniqueDto, JSON_VALUES, sample(arrays, next(), 60));
add('@IsString({ each: true })', EachStringDto, JSON_VALUES, sample(arrays, next(), 60));
add('@IsEmail({}, { each: true })', EachEmailDto, JSON_VALUES, sample(arrays, next(), 60));
add('@MinLength(2, { each: true })', EachMinLengthDto, JSON_VALUES, sample(arrays, next(), 60));

// ---- the comparison ---------------------------------------------------------------------------

/**
 * What class-validator alone says about the arguments `{ value }`. Some of its checks throw
 * instead of answering (validator.js's isEmail on a lone surrogate: encodeURI's URIError;
 * maxDecimalPlaces on 5e-324, whose text has no decimal point): a check that throws has not
 * accepted the value.
 */
async function classValidatorSays(kase: Case, value: Json): Promise<'accepts' | 'rejects' | 'throws'> {
  const instance = plainToInstance(kase.dto, { value }, kase.convert ? { enableImplicitConversion: true } : {}) as object;
  try {
    return (await validate(instance, { forbidUnknownValues: false })).length === 0 ? 'accepts' : 'rejects';
  } catch {
    return 'throws';
  }
}

/** The tool's answer: accepted, refused with isError, or a JSON-RPC error. */
async function toolSays(client: TestClient, tool: string, value: Json): Promise<'accepts' | 'isError' | 'error'> {
  try {
    const result = await client.callTool(tool, { value } as never);
    if (result.isError === true) return 'isError';
    expect(result.content).toEqual([{ type: 'text', text: 'accepted' }]);
    return 'accepts';
  } catch (error) {
    if (error instanceof McpRequestError) return 'error';
    throw error;
  }
}

/** A provider with one tool per case, `case_<i>`, taking that case's DTO. */
function providerOf(all: readonly Case[]): Constructor {
  class Differential {}
  const prototype = Differential.prototype as Record<string, unknown>;
  all.forEach((kase, i) => {
    const name = `case_${i}`;
    prototype[name] = () => 'accepted';
    Tool({ description: kase.name, input: kase.dto })(prototype, name, Object.getOwnPropertyDescriptor(prototype, name)!);
  });
  return Differential;
}

interface Row {
  readonly name: string;
  readonly values: number;
  readonly rejected: number;
  readonly refused: number;
  readonly threw: number;
  readonly stricter: Json[];
}

const show = (value: Json): string => {
  const text = JSON.stringify(value);
  return text.length > 48 ? `${text.slice(0, 45)}...` : text;
};

describe('tools/call never accepts what class-validator rejects', () => {
  let client: TestClient;
  const rows: Row[] = [];

  beforeAll(async () => {
    const server = new McpServer({ name: 'differential', version: '1', providers: [providerOf(cases)] });
    client = await createTestClient(server, { schemaCheck: false });
  });

  afterAll(async () => {
    await client?.close();
    const width = Math.max(...rows.map((row) => row.name.length));
    const lines = rows.map(
      (row) =>
        `${row.name.padEnd(width)}  ${String(row.values).padStart(4)}  ${String(row.rejected).padStart(4)}  ${String(row.refused).padStart(5)}  ${String(row.threw).padStart(5)}  ${String(row.stricter.length).padStart(8)}  ${row.stricter.slice(0, 4).map(show).join(' ')}`,
    );
    const total = (pick: (row: Row) => number) => rows.reduce((sum, row) => sum + pick(row), 0);
    console.log(
      [
        'Differential validation against class-validator. sent: values; cv✗: refused by class-validator; tool✗: of those, refused by tools/call (isError);',
        'threw: class-validator threw instead of answering (the tool must not accept); stricter: accepted by class-validator, refused by tools/call (examples follow)',
        `${'decorator'.padEnd(width)}  sent   cv✗  tool✗  threw  stricter  examples`,
        ...lines,
        `${'total'.padEnd(width)}  ${total((r) => r.values)}  ${total((r) => r.rejected)}  ${total((r) => r.refused)}  ${total((r) => r.threw)}  ${total((r) => r.stricter.length)}`,
      ].join('\n'),
    );
  });

  it.each(cases.map((kase, i) => [kase.name, kase, i] as const))('%s', async (_name, kase, i) => {
    const looser: Json[] = [];
    const stricter: Json[] = [];
    let rejected = 0;
    let refused = 0;
    let threw = 0;
    for (const value of kase.values) {
      const [reference, answer] = await Promise.all([classValidatorSays(kase, value), toolSays(client, `case_${i}`, value)]);
      if (reference === 'rejects') {
        rejected++;
        if (answer === 'isError') refused++;
        else looser.push(value);
      } else if (reference === 'throws') {
        // The same throw inside the server refuses the call, saying so (not an internal error).
        threw++;
        if (answer !== 'isError') looser.push(value);
      } else if (answer !== 'accepts') stricter.push(value);
    }
    rows.push({ name: kase.name, values: kase.values.length, rejected, refused, threw, stricter });
    expect({ decorator: kase.name, notRefusedThoughClassValidatorRejects: looser }).toEqual({ decorator: kase.name, notRefusedThoughClassValidatorRejects: [] });
  });
});
