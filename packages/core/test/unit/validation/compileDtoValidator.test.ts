import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsUrl,
  Matches,
  IsArray,
  IsDate,
  IsEmail,
  IsEnum,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  MinLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
} from 'class-validator';
import type { ValidationArguments, ValidatorConstraintInterface } from 'class-validator';
import { Description } from '../../../src/decorators/Description';
import { compileDtoValidator } from '../../../src/validation';
import type { ValidationOutcome } from '../../../src/validation';

enum Unit {
  Celsius = 'c',
  Fahrenheit = 'f',
}

class Location {
  @IsNumber() @Min(-90) @Max(90) lat!: number;
  @IsNumber() @Min(-180) @Max(180) lon!: number;

  isNorthern(): boolean {
    return this.lat > 0;
  }
}

class Stop {
  @IsString() name!: string;
}

class Forecast {
  @IsString() @Description('City name') city!: string;
  @IsOptional() @IsInt() @Min(1) @Max(14) days?: number;
  @IsOptional() @IsEnum(Unit) unit?: Unit;
  @IsOptional() @ValidateNested() location?: Location;
  // A Date without @IsDate: only the schema checks it (@IsDate would bring class-validator in).
  @IsOptional() since?: Date;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Stop) @ArrayMaxSize(2) stops?: Stop[];
  @IsOptional() @Matches(/^\S+@\S+$/u) notify?: string;
}

class NoArgs {}

class WithDefault {
  @IsOptional() @IsInt() limit: number = 10;
}

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be an even number`;
  }
}

class Pairs {
  @IsInt() @Validate(Even) count!: number;
  @IsOptional() @IsString() @MinLength(2) note?: string;
}

class Wrapper {
  @ValidateNested() inner!: Pairs;
}

function expectFailure<T>(outcome: ValidationOutcome<T>): string[] {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.errors;
}

describe('compileDtoValidator without class-validator (schema only)', () => {
  const validator = compileDtoValidator(Forecast);

  it('returns synchronously', () => {
    const outcome = validator.validate({ city: 'Paris' });
    expect(outcome).not.toBeInstanceOf(Promise);
  });

  it('is compiled once per class', () => {
    expect(compileDtoValidator(Forecast)).toBe(validator);
  });

  it('produces real class instances, nested instances and Dates', () => {
    const outcome = validator.validate({
      city: 'Paris',
      days: 3,
      unit: 'c',
      location: { lat: 48.85, lon: 2.35 },
      since: '2024-05-01T10:00:00Z',
      stops: [{ name: 'Lyon' }],
    }) as ValidationOutcome<Forecast>;
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const value = outcome.value;
    expect(value).toBeInstanceOf(Forecast);
    expect(value.location).toBeInstanceOf(Location);
    expect(value.location?.isNorthern()).toBe(true);
    expect(value.since).toBeInstanceOf(Date);
    expect(value.since?.toISOString()).toBe('2024-05-01T10:00:00.000Z');
    expect(value.stops?.[0]).toBeInstanceOf(Stop);
    expect(value).toMatchObject({ city: 'Paris', days: 3, unit: Unit.Celsius });
  });

  it('treats undefined arguments as an empty object', () => {
    expect(compileDtoValidator(NoArgs).validate(undefined)).toEqual({ ok: true, value: new NoArgs() });
    expect(expectFailure(validator.validate(undefined) as ValidationOutcome<Forecast>)).toEqual([
      'missing required property "city"',
    ]);
  });

  it('keeps property initializers for omitted properties', () => {
    const outcome = compileDtoValidator(WithDefault).validate({}) as ValidationOutcome<WithDefault>;
    expect(outcome).toEqual({ ok: true, value: expect.any(WithDefault) });
    expect(outcome.ok && outcome.value.limit).toBe(10);
  });

  it('reports type, range, enum, unknown property and pattern problems together', () => {
    const errors = expectFailure(
      validator.validate({ city: 7, days: 15, unit: 'k', foo: 1, notify: 'not-an-email' }) as ValidationOutcome<Forecast>,
    );
    expect(errors).toEqual([
      'unknown property "foo"',
      '"city": must be string',
      '"days": must be <= 14',
      '"unit": must be one of "c", "f"',
      '"notify": must match pattern "^\\S+@\\S+$"',
    ]);
  });

  it('names nested paths and array indexes', () => {
    const errors = expectFailure(
      validator.validate({
        city: 'Paris',
        location: { lat: 91, extra: true },
        stops: [{ name: 'a' }, { name: 1 }, { name: 'c' }],
      }) as ValidationOutcome<Forecast>,
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        '"location.lat": must be <= 90',
        'missing required property "location.lon"',
        'unknown property "location.extra"',
        '"stops[1].name": must be string',
        '"stops": must NOT have more than 2 items',
      ]),
    );
    expect(errors).toHaveLength(5);
  });

  it('rejects a non-object, a Date-like non-date and null for optional properties', () => {
    expect(expectFailure(validator.validate([]) as ValidationOutcome<Forecast>)).toEqual(['arguments: must be object']);
    expect(expectFailure(validator.validate({ city: 'x', since: 'yesterday' }) as ValidationOutcome<Forecast>)).toEqual([
      '"since": must match format "date-time"',
    ]);
    expect(expectFailure(validator.validate({ city: 'x', days: null }) as ValidationOutcome<Forecast>)).toEqual([
      '"days": must be integer',
    ]);
  });

  it('does not change the arguments it was given', () => {
    const args = { city: 'Paris', location: { lat: 1, lon: 2 } };
    const copy = structuredClone(args);
    validator.validate(args);
    expect(args).toEqual(copy);
  });

  it('caps the number of messages', () => {
    class Many {
      @IsOptional() @IsString({ each: true }) values?: string[];
    }
    const errors = expectFailure(compileDtoValidator(Many).validate({ values: Array.from({ length: 30 }, (_, i) => i) }) as ValidationOutcome<Many>);
    expect(errors).toHaveLength(21);
    expect(errors[0]).toBe('"values[0]": must be string');
    expect(errors[20]).toBe('…and 10 more problems');
  });
});

describe('compileDtoValidator with class-validator (custom constraints)', () => {
  const validator = compileDtoValidator(Pairs);

  it('returns a promise and passes valid input through as an instance', async () => {
    const pending = validator.validate({ count: 4 });
    expect(pending).toBeInstanceOf(Promise);
    const outcome = await pending;
    expect(outcome).toEqual({ ok: true, value: expect.any(Pairs) });
  });

  it('reports the custom constraint message with its path', async () => {
    await expect(validator.validate({ count: 3 })).resolves.toEqual({
      ok: false,
      errors: ['"count": count must be an even number'],
    });
  });

  it('stops at schema errors before running class-validator', async () => {
    await expect(Promise.resolve(validator.validate({ count: 'x', note: 'a' }))).resolves.toEqual({
      ok: false,
      errors: ['"count": must be integer', '"note": must NOT have fewer than 2 characters'],
    });
  });

  it('runs nested custom constraints through @ValidateNested', async () => {
    const wrapper = compileDtoValidator(Wrapper);
    await expect(wrapper.validate({ inner: { count: 5 } })).resolves.toEqual({
      ok: false,
      errors: ['"inner.count": count must be an even number'],
    });
    const outcome = await wrapper.validate({ inner: { count: 6 } });
    expect(outcome.ok && outcome.value.inner).toBeInstanceOf(Pairs);
  });
});

describe('compileDtoValidator with free-form values', () => {
  class Leaf {
    @IsString() id!: string;
    @IsOptional() @IsObject() data?: Record<string, unknown>;
  }

  class Payload {
    @IsObject() meta!: Record<string, unknown>;
    @IsOptional() anything?: unknown;
    @IsOptional() @IsArray() rows?: unknown[];
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Leaf) leaves?: Leaf[];
    @IsOptional()
    @IsObject()
    @Transform(({ obj }) => new Map(Object.entries((obj as { asMap: object }).asMap)))
    asMap?: Map<string, unknown>;
  }

  const validator = compileDtoValidator(Payload);

  it('passes free-form values through exactly as sent, whatever their keys', () => {
    const args = JSON.parse(
      '{"meta":{"constructor":{"a":1},"toString":"x","__proto__":{"p":1},"nested":{"valueOf":2}},' +
        '"anything":{"hasOwnProperty":true},"rows":[{"constructor":"c"}],' +
        '"leaves":[{"id":"l1","data":{"constructor":{"deep":[{"isPrototypeOf":1}]}}}]}',
    );
    const expected = structuredClone(args);
    const outcome = validator.validate(args) as ValidationOutcome<Payload>;
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const value = outcome.value;
    expect(value).toBeInstanceOf(Payload);
    expect(value.leaves?.[0]).toBeInstanceOf(Leaf);
    expect(value.meta).toEqual(expected.meta);
    expect(Object.keys(value.meta)).toEqual(['constructor', 'toString', '__proto__', 'nested']);
    expect(value.anything).toEqual(expected.anything);
    expect(value.rows).toEqual(expected.rows);
    expect(value.leaves?.[0].data).toEqual(expected.leaves[0].data);
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });

  it('survives deeply nested free-form values', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20000; i++) deep = [deep];
    const outcome = validator.validate({ meta: {}, anything: deep }) as ValidationOutcome<Payload>;
    expect(outcome.ok && outcome.value.anything).toBe(deep);
  });

  it('leaves properties with @Transform to class-transformer', () => {
    const outcome = validator.validate({ meta: {}, asMap: { a: 1 } }) as ValidationOutcome<Payload>;
    expect(outcome.ok && outcome.value.asMap).toEqual(new Map([['a', 1]]));
  });
});

describe('compileDtoValidator with recursive DTOs', () => {
  class Node {
    @IsString() name!: string;
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Node) children?: Node[];
  }

  const validator = compileDtoValidator(Node);

  it('converts every level into instances', () => {
    const outcome = validator.validate({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] }) as ValidationOutcome<Node>;
    expect(outcome.ok && outcome.value.children?.[0].children?.[0]).toBeInstanceOf(Node);
  });

  it('answers absurdly deep input with an error instead of throwing', () => {
    let deep: Record<string, unknown> = { name: 'leaf' };
    for (let i = 0; i < 50000; i++) deep = { name: 'n', children: [deep] };
    expect(validator.validate(deep)).toEqual({ ok: false, errors: ['arguments are nested too deeply'] });
  });
});

describe('compileDtoValidator with polymorphic @Type (discriminator)', () => {
  class Cat {
    @IsString() meow!: string;
  }
  class Dog {
    @IsString() bark!: string;
  }
  class Owner {
    @ValidateNested()
    @Type(() => Object, {
      discriminator: { property: 'kind', subTypes: [{ name: 'cat', value: Cat }, { name: 'dog', value: Dog }] },
    })
    pet!: Cat | Dog;
  }

  const validator = compileDtoValidator(Owner);

  it('builds the chosen subtype and lets class-validator check it', async () => {
    const outcome = await validator.validate({ pet: { kind: 'cat', meow: 'purr' } });
    expect(outcome.ok && outcome.value.pet).toBeInstanceOf(Cat);
    // Only class-validator sees inside a polymorphic value, after class-transformer's implicit
    // conversion (which would turn a number into a string), so a missing property is the probe.
    await expect(validator.validate({ pet: { kind: 'dog' } })).resolves.toEqual({
      ok: false,
      errors: ['"pet.bark": bark must be a string'],
    });
  });
});

describe('compileDtoValidator: one answer with every problem', () => {
  class BookmarkInput {
    @IsUrl() url!: string;
    @IsArray() @ArrayUnique() @Matches(/^[a-z-]+$/, { each: true }) tags!: string[];
  }

  class LocalInput {
    @IsUrl({ require_tld: false, protocols: ['https'] }) url!: string;
  }

  it('reports a URL class-validator refuses beside the schema problems of other properties', async () => {
    const outcome = await compileDtoValidator(BookmarkInput).validate({ url: 'ftp://nope', tags: ['Bad Tag', 'x', 'x'] });
    expect(outcome).toEqual({
      ok: false,
      errors: [
        '"tags[0]": must match pattern "^[a-z-]+$"',
        '"tags": must NOT have duplicate items (items ## 2 and 1 are identical)',
        '"url": must be a URL whose host has a top-level domain, such as example.com; the host of "ftp://nope" ("nope") has none',
      ],
    });
  });

  it('says why a URL is refused: its protocol, its missing domain, or no URL at all', async () => {
    const errors = async (url: unknown, dto: new () => object = LocalInput) => {
      const outcome = await compileDtoValidator(dto).validate(dto === BookmarkInput ? { url, tags: ['ok'] } : { url });
      return outcome.ok ? [] : outcome.errors;
    };
    expect(await errors('http://localhost:3000')).toEqual(['"url": must be a URL with protocol https; "http://localhost:3000" has http']);
    expect(await errors('https://localhost:3000')).toEqual([]);
    expect(await errors('https://localhost:3000', BookmarkInput)).toEqual([
      '"url": must be a URL whose host has a top-level domain, such as example.com; the host of "https://localhost:3000" ("localhost") has none',
    ]);
    // Not a URI at all: the schema's format check answers first.
    expect(await errors('not a url at all', BookmarkInput)).toEqual(['"url": must match format "uri"']);
  });
});

describe('compileDtoValidator: formats and lengths class-validator decides', () => {
  class Contact {
    @IsOptional() @IsEmail() email?: string;
    @IsOptional() @IsDate() at?: Date;
    @IsOptional() @IsString() @MinLength(2) initials?: string;
  }

  const validate = (args: object) => compileDtoValidator(Contact).validate(args);

  it('runs class-validator, so a value the schema format takes can still be refused', async () => {
    const pending = validate({ email: 'a@b.c' });
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toEqual({ ok: false, errors: ['"email": email must be an email'] });
    await expect(validate({ email: 'ada@example.com' })).resolves.toEqual({ ok: true, value: expect.any(Contact) });
  });

  it('keeps the schema answer when class-validator throws on what the schema refused', async () => {
    // validator.js's isEmail runs encodeURI, which throws on a lone surrogate.
    await expect(Promise.resolve(validate({ email: 'a\uD83D@example.com', initials: 'x' }))).resolves.toEqual({
      ok: false,
      errors: ['"email": must match format "email"', '"initials": must NOT have fewer than 2 characters'],
    });
  });

  it('refuses a date-time the runtime cannot turn into a Date', async () => {
    // ajv's date-time takes an offset without minutes; V8's Date parser does not.
    await expect(validate({ at: '2024-05-01T10:00:00+02' })).resolves.toEqual({ ok: false, errors: ['"at": at must be a Date instance'] });
    const outcome = await validate({ at: '2024-05-01T10:00:00+02:00' });
    expect(outcome.ok && (outcome.value.at as Date).toISOString()).toBe('2024-05-01T08:00:00.000Z');
  });

  it('counts a length the way class-validator does: a variation selector after a character is not counted', async () => {
    await expect(validate({ initials: 'a\uFE0F' })).resolves.toEqual({
      ok: false,
      errors: ['"initials": initials must be longer than or equal to 2 characters'],
    });
    await expect(validate({ initials: '\u{1F600}\u{1F600}' })).resolves.toEqual({ ok: true, value: expect.any(Contact) });
    // The schema still answers first when it can.
    await expect(validate({ initials: 'a' })).resolves.toEqual({ ok: false, errors: ['"initials": must NOT have fewer than 2 characters'] });
  });
});
