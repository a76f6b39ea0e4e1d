import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayUnique,
  IsDate,
  IsDateString,
  IsDivisibleBy,
  IsEmail,
  IsEnum,
  IsISO8601,
  IsUrl,
  IsHexColor,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
} from 'class-validator';
import type { ValidationArguments, ValidatorConstraintInterface } from 'class-validator';
import { describeDto } from '../../../src/schema';
import type { JsonSchema } from '../../../src/schema';

enum Color {
  Red = 'red',
  Blue = 'blue',
}

class Point {
  @IsNumber() @Min(0) x!: number;
  @IsNumber() @Max(10) y!: number;
}

class FullyExpressed {
  @IsString() @MinLength(1) @Matches(/^\w+$/u) name!: string;
  @IsOptional() @IsInt() @Min(1) limit?: number;
  @IsEnum(Color) color!: Color;
  @IsIn(['a', 'b']) letter!: string;
  @IsString() @Length(1, 20) @Matches(/^[a-z][a-z0-9-]*$/) slug!: string;
  @IsString() @MaxLength(3) @Matches(/^\S{1,3}$/u) code!: string;
  @ValidateNested({ each: true }) @Type(() => Point) points!: Point[];
  @IsString({ each: true }) tags!: string[];
}

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
}

class WithValidate {
  @IsInt() @Validate(Even) n!: number;
}

function IsPalindrome(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPalindrome',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value === [...value].reverse().join(''),
        defaultMessage: (args?: ValidationArguments) => `${args?.property} must be a palindrome`,
      },
    });
}

class WithRegistered {
  @IsString() @IsPalindrome() word!: string;
}

class WithValidateIf {
  @IsString() kind!: string;
  @ValidateIf((o: WithValidateIf) => o.kind === 'url') @IsString() url!: string;
}

class WithConditionalOption {
  @IsInt() @Min(1, { validateIf: () => false }) n!: number;
}

class CaseInsensitive {
  @Matches(/^abc$/i) code!: string;
}

class NotUnicodeSafe {
  @Matches(/^\_x$/) code!: string;
}

class EmailWithOptions {
  @IsEmail({ allow_display_name: true }) email!: string;
}

class UuidVersion {
  @IsUUID('4') id!: string;
}

class WithEmail {
  @IsEmail() email!: string;
}

class WithUrl {
  @IsUrl() url!: string;
}

class WithUuid {
  @IsUUID('all') id!: string;
}

class WithIsoDate {
  @IsISO8601() when!: string;
}

class WithDateString {
  @IsDateString() when!: string;
}

class WithDate {
  @IsDate() when!: Date;
}

class WithMinLength {
  @IsString() @MinLength(2) name!: string;
}

class WithLength {
  @IsString() @Length(2, 10) name!: string;
}

class WithDivisor {
  @IsInt() @IsDivisibleBy(3) n!: number;
}

class CodeUnitPattern {
  @Matches(/^.{1,3}$/) short!: string;
}

class DecimalPlaces {
  @IsNumber({ maxDecimalPlaces: 2 }) price!: number;
}

class UnknownBuiltin {
  @IsHexColor() color!: any;
}

class UniqueBySelector {
  @ArrayUnique((item: { id: string }) => item.id) items!: { id: string }[];
}

class CustomInside {
  @ValidateNested() inner!: WithValidate;
}

describe('describeDto().needsClassValidator', () => {
  it('is false when the schema expresses every constraint, nested DTOs included', () => {
    expect(describeDto(FullyExpressed).needsClassValidator).toBe(false);
    expect(describeDto(Point).needsClassValidator).toBe(false);
  });

  it.each([
    ['@Validate(constraint class)', WithValidate],
    ['registerDecorator()', WithRegistered],
    ['@ValidateIf()', WithValidateIf],
    ['a validateIf option', WithConditionalOption],
    ['regex flags the schema cannot carry', CaseInsensitive],
    ['a regex invalid in unicode mode', NotUnicodeSafe],
    ['IsEmail options', EmailWithOptions],
    ['a UUID version', UuidVersion],
    ['@IsEmail() (ajv\'s email takes a@b.c)', WithEmail],
    ['@IsUrl() (ajv\'s uri takes javascript:alert(1))', WithUrl],
    ['@IsUUID() (ajv\'s uuid takes version 0)', WithUuid],
    ['@IsISO8601() (ajv\'s date-time takes a lower-case t)', WithIsoDate],
    ['@IsDateString()', WithDateString],
    ['@IsDate() (the Date parser refuses some date-times)', WithDate],
    ['@MinLength(2) (class-validator does not count some variation selectors)', WithMinLength],
    ['@Length(2, 10)', WithLength],
    ['@IsDivisibleBy() (class-validator divides by parseInt(n))', WithDivisor],
    ['a regex without the u flag that counts code units', CodeUnitPattern],
    ['maxDecimalPlaces', DecimalPlaces],
    ['a built-in validator without a schema form', UnknownBuiltin],
    ['ArrayUnique (its selector is invisible)', UniqueBySelector],
    ['a nested DTO that needs it', CustomInside],
  ])('is true for %s', (_name, dto) => {
    expect(describeDto(dto).needsClassValidator).toBe(true);
  });

  it('keeps what the schema can say about partly expressible properties', () => {
    const props = (dto: new () => unknown) => describeDto(dto).schema.properties as Record<string, JsonSchema>;
    expect(props(CaseInsensitive).code).toEqual({ type: 'string' });
    expect(props(NotUnicodeSafe).code).toEqual({ type: 'string' });
    expect(props(EmailWithOptions).email).toEqual({ type: 'string', format: 'email' });
    expect(props(UuidVersion).id).toEqual({ type: 'string', format: 'uuid' });
    expect(props(WithUrl).url).toEqual({ type: 'string', format: 'uri' });
    expect(props(WithDate).when).toEqual({ type: 'string', format: 'date-time' });
    expect(props(WithLength).name).toEqual({ type: 'string', minLength: 2, maxLength: 10 });
    expect(props(WithDivisor).n).toEqual({ type: 'integer', multipleOf: 3 });
    expect(props(CodeUnitPattern).short).toEqual({ type: 'string', pattern: '^.{1,3}$' });
    expect(props(UnknownBuiltin).color).toEqual({ type: 'string' });
    expect(props(WithValidate).n).toEqual({ type: 'integer' });
    expect(props(WithConditionalOption).n).toEqual({ type: 'integer' });
  });

  it('makes @ValidateIf properties optional in the schema', () => {
    expect(describeDto(WithValidateIf).schema.required).toEqual(['kind']);
  });
});

describe('describeDto for polymorphic @Type', () => {
  class Cat {
    @IsString() meow!: string;
  }
  class Owner {
    @ValidateNested()
    @Type(() => Object, { discriminator: { property: 'kind', subTypes: [{ name: 'cat', value: Cat }] } })
    pet!: Cat;
  }

  it('describes the value as an object and leaves the subtype to class-validator', () => {
    expect(describeDto(Owner)).toEqual({
      schema: { type: 'object', properties: { pet: { type: 'object' } }, required: ['pet'], additionalProperties: false },
      needsClassValidator: true,
    });
  });
});
