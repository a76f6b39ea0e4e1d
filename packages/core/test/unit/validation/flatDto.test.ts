import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsDate, IsEnum, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { describeDto } from '../../../src/schema';
import { compileDtoValidator } from '../../../src/validation';
import { isFlatDto } from '../../../src/validation/flatDto';

enum Mode {
  Fast = 'fast',
  Safe = 'safe',
}

class Flat {
  @IsString() text!: string;
  @IsOptional() @IsInt() count?: number;
  @IsOptional() @IsEnum(Mode) mode: Mode = Mode.Safe;
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
  greet(): string {
    return `hi ${this.text}`;
  }
}

class WithDate {
  @IsDate() @Type(() => Date) at!: Date;
}

class Inner {
  @IsString() a!: string;
}
class Nested {
  @ValidateNested() @Type(() => Inner) inner!: Inner;
}

class Transformed {
  @IsString() @Transform(({ value }) => String(value).trim()) name!: string;
}

const flat = (dto: new () => object) => isFlatDto(dto, describeDto(dto).schema);

describe('isFlatDto', () => {
  it('accepts primitives, enums and lists of primitives', () => {
    expect(flat(Flat)).toBe(true);
  });

  it('refuses what class-transformer converts: dates, nested DTOs, @Transform', () => {
    expect(flat(WithDate)).toBe(false);
    expect(flat(Nested)).toBe(false);
    expect(flat(Transformed)).toBe(false);
  });

  it('converts a flat DTO into a real instance with its defaults, as class-transformer would', () => {
    const outcome = compileDtoValidator(Flat).validate({ text: 'Ada', tags: ['x'] });
    expect(outcome).toEqual({ ok: true, value: expect.any(Flat) });
    const value = (outcome as { value: Flat }).value;
    expect(value.greet()).toBe('hi Ada');
    expect(value.mode).toBe(Mode.Safe);
    expect(value.tags).toEqual(['x']);
  });

  it('still applies @Transform where it is declared', () => {
    const outcome = compileDtoValidator(Transformed).validate({ name: '  padded ' });
    expect((outcome as { value: Transformed }).value.name).toBe('padded');
  });
});
