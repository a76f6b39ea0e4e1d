import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, MinLength, Validate, ValidateNested, ValidatorConstraint } from 'class-validator';
import type { ValidationArguments, ValidatorConstraintInterface } from 'class-validator';
import { Description, McpServer, metadataStore, Sensitive, Tool } from '@typemcp/core';
import { ALL_SPEC_VERSIONS, createTestClient, McpRequestError, validateServerMessage } from '@typemcp/testing';
import { describeDto } from '../../../src/schema';
import { compileDtoValidator } from '../../../src/validation';
import type { ValidationOutcome } from '../../../src/validation';

const SECRET = 'hunter2-s3cret';

@ValidatorConstraint({ name: 'notLeaked' })
class NotLeaked implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && !value.includes('s3cret');
  }
  defaultMessage(args: ValidationArguments): string {
    // A careless constraint that quotes what it was given.
    return `${args.property} must not contain a secret, got ${String(args.value)} in ${JSON.stringify(args.object)}`;
  }
}

@ValidatorConstraint({ name: 'startsWith' })
class StartsWith implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return typeof value === 'string' && value.startsWith(String(args.constraints[0]));
  }
  defaultMessage(): string {
    return '$property must start with $constraint1';
  }
}

class Credentials {
  @IsString() user!: string;
  @Sensitive() @IsString() @MinLength(40) password!: string;
  @IsOptional() @IsString() @Validate(StartsWith, ['hint:'], { message: '$property "$value" must start with $constraint1' }) hint?: string;
}

class Bookmark {
  @Sensitive() @Description('A signed link') @IsUrl() url!: string;
  @IsUrl() publicUrl!: string;
  @IsOptional() @Sensitive() @IsString() @Validate(StartsWith, ['tok_'], { message: 'token "$value" must start with $constraint1' }) token?: string;
  @IsOptional() @Sensitive() @IsString() @Validate(StartsWith, ['key_'], { message: (args: ValidationArguments) => `key ${String(args.value)} is wrong` }) apiKey?: string;
  @IsOptional() @Sensitive() @Validate(NotLeaked) note?: string;
  @IsOptional() @Sensitive() @IsString() @Validate(StartsWith, ['pin_'], { message: 'the pin must start with $constraint1' }) pin?: string;
  @IsOptional() @IsString() @Validate(StartsWith, ['ref_'], { message: '$property "$value" must start with $constraint1' }) reference?: string;
}

class Nested {
  @Sensitive() @ValidateNested() @Type(() => Credentials) login!: Credentials;
}

class Inside {
  @ValidateNested() @Type(() => Bookmark) bookmark!: Bookmark;
}

async function errorsOf(dto: new () => unknown, args: Record<string, unknown>): Promise<string[]> {
  const outcome = (await compileDtoValidator(dto).validate(args)) as ValidationOutcome<unknown>;
  if (outcome.ok) throw new Error(`expected ${JSON.stringify(args)} to be refused`);
  return outcome.errors;
}

const valid = { url: 'https://example.com/a', publicUrl: 'https://example.com/b' };

describe('@Sensitive in the generated schema', () => {
  it('marks the property writeOnly, beside its description, and no other', () => {
    const { properties } = describeDto(Bookmark).schema as { properties: Record<string, Record<string, unknown>> };
    expect(properties.url).toEqual({ type: 'string', description: 'A signed link', format: 'uri', writeOnly: true });
    expect(properties.publicUrl.writeOnly).toBeUndefined();
    expect(properties.token.writeOnly).toBe(true);
    expect(properties.reference.writeOnly).toBeUndefined();
  });

  it('marks a nested DTO property writeOnly, and the properties inside it by their own declarations', () => {
    const login = (describeDto(Nested).schema as { properties: { login: { writeOnly?: boolean; properties: Record<string, Record<string, unknown>> } } }).properties.login;
    expect(login.writeOnly).toBe(true);
    expect(login.properties.password.writeOnly).toBe(true);
    expect(login.properties.user.writeOnly).toBeUndefined();
  });

  it('is inherited by subclasses', () => {
    class MoreCredentials extends Credentials {
      @IsInt() pin!: number;
    }
    expect(metadataStore.isSensitive(MoreCredentials, 'password')).toBe(true);
    expect(metadataStore.isSensitive(MoreCredentials, 'user')).toBe(false);
  });
});

describe('@Sensitive in validation messages', () => {
  it('an invalid @IsUrl value: the rule and the path, never the value', async () => {
    // What the schema's format check lets through reaches @IsUrl, which says why without the value.
    for (const url of [`https://${SECRET}`, `gopher://${SECRET}.example.com`, `https://${SECRET}:1/`]) {
      const errors = await errorsOf(Bookmark, { ...valid, url });
      expect(errors.join('\n')).not.toContain(SECRET);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^"url": must be a URL/);
    }
    expect(await errorsOf(Bookmark, { ...valid, url: `https://${SECRET}` })).toEqual(['"url": must be a URL whose host has a top-level domain, such as example.com']);
  });

  it('a property that is not sensitive still quotes its value, as before', async () => {
    expect(await errorsOf(Bookmark, { ...valid, publicUrl: 'https://localhost' })).toEqual([
      '"publicUrl": must be a URL whose host has a top-level domain, such as example.com; the host of "https://localhost" ("localhost") has none',
    ]);
    expect(await errorsOf(Bookmark, { ...valid, reference: 'nope' })).toEqual(['"reference": reference "nope" must start with ref_']);
  });

  it('an author message quoting $value, a message function, a constraint that quotes its value: none reaches the answer', async () => {
    const errors = await errorsOf(Bookmark, { ...valid, token: SECRET, apiKey: SECRET, note: SECRET, pin: SECRET });
    expect(errors.join('\n')).not.toContain(SECRET);
    expect(errors).toEqual([
      // The constraint's default message stands for the author's, which would quote the value.
      '"token": token must start with tok_',
      '"apiKey": apiKey must start with key_',
      '"note": note must not contain a secret, got undefined in {}',
      // An author's message that quotes nothing of the value stays.
      '"pin": the pin must start with pin_',
    ]);
  });

  it('everything inside a sensitive nested DTO, and a sensitive property inside a nested DTO', async () => {
    const nested = await errorsOf(Nested, { login: { user: 42, password: SECRET } });
    expect(nested.join('\n')).not.toContain(SECRET);
    expect(nested).toEqual(expect.arrayContaining(['"login.password": must NOT have fewer than 40 characters']));

    const inside = await errorsOf(Inside, { bookmark: { ...valid, url: `https://${SECRET}`, token: SECRET } });
    expect(inside.join('\n')).not.toContain(SECRET);
    expect(inside).toEqual(['"bookmark.url": must be a URL whose host has a top-level domain, such as example.com', '"bookmark.token": token must start with tok_']);

    // The hint is not sensitive of itself: alone it is quoted, inside a sensitive login it is not.
    const password = `${'x'.repeat(40)}`;
    expect(await errorsOf(Credentials, { user: 'ann', password, hint: SECRET })).toEqual([`"hint": hint "${SECRET}" must start with hint:`]);
    expect(await errorsOf(Nested, { login: { user: 'ann', password, hint: SECRET } })).toEqual(['"login.hint": hint must start with hint:']);
  });

  it('the schema (ajv) messages quote no value either', async () => {
    const errors = await errorsOf(Credentials, { user: SECRET, password: SECRET });
    expect(errors).toEqual(['"password": must NOT have fewer than 40 characters']);
    const typed = await errorsOf(Bookmark, { ...valid, url: `not a url ${SECRET}`, token: 7, apiKey: [SECRET] });
    expect(typed.join('\n')).not.toContain(SECRET);
    expect(typed).toEqual(['"url": must match format "uri"', '"token": must be string', '"apiKey": must be string']);
  });
});

describe('@Sensitive through a server', () => {
  class Links {
    @Tool({ description: 'Saves a signed link' })
    save_link(input: Bookmark): string {
      return `saved ${input.publicUrl}`;
    }
  }
  const server = () => new McpServer({ name: 'links', version: '1.0.0', providers: [Links] });

  it.each(ALL_SPEC_VERSIONS)('tools/list says writeOnly and still validates against the %s schema', async (version) => {
    const client = await createTestClient(server(), { protocolVersion: version });
    try {
      const result = await client.request('tools/list');
      const [tool] = result.tools as Array<{ inputSchema: { properties: Record<string, Record<string, unknown>> } }>;
      expect(tool.inputSchema.properties.url.writeOnly).toBe(true);
      expect(validateServerMessage(version, { jsonrpc: '2.0', id: 1, result }, { requestMethod: 'tools/list' })).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it.each(ALL_SPEC_VERSIONS)('an invalid sensitive URL is refused at %s without its value', async (version) => {
    const client = await createTestClient(server(), { protocolVersion: version });
    try {
      let text: string;
      try {
        const result = await client.callTool('save_link', { ...valid, url: `https://${SECRET}` });
        expect(result.isError).toBe(true);
        text = JSON.stringify(result);
      } catch (error) {
        if (!(error instanceof McpRequestError)) throw error;
        expect(error.code).toBe(-32602);
        text = JSON.stringify({ message: error.message, data: error.data });
      }
      expect(text).toContain('url');
      expect(text).toContain('must be a URL whose host has a top-level domain');
      expect(text).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  });
});
