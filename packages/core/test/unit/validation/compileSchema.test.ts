import { ValidationError } from 'class-validator';
import { compileSchema } from '../../../src/validation';
import { formatClassValidatorErrors } from '../../../src/validation/formatErrors';

describe('compileSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string', not: { const: 'untitled' } },
      kind: { const: 'note' },
      tags: { type: 'array', items: { type: 'string', not: { enum: ['', 'x'] } } },
      'odd/key~': { type: 'integer' },
    },
    required: ['title'],
    additionalProperties: false,
  };
  const check = compileSchema(schema);

  it('returns no problems for a valid value', () => {
    expect(check({ title: 'a', kind: 'note', tags: ['t'] })).toEqual([]);
  });

  it('is compiled once per schema object', () => {
    const again = compileSchema(schema);
    expect(again({ title: 1 })).toEqual(check({ title: 1 }));
  });

  it('explains const, not and escaped pointer segments', () => {
    expect(check({ title: 'untitled', kind: 'memo', tags: ['ok', 'x'], 'odd/key~': 1.5 })).toEqual([
      '"title": must not be "untitled"',
      '"kind": must be equal to "note"',
      '"tags[1]": must not be one of "", "x"',
      '"odd/key~": must be integer',
    ]);
  });

  it('rejects schemas strict mode refuses', () => {
    expect(() => compileSchema({ minimum: 1 })).toThrow(/strict mode/);
  });
});

describe('formatClassValidatorErrors', () => {
  it('walks nested errors, with array indexes in brackets', () => {
    const leaf = Object.assign(new ValidationError(), { property: 'name', constraints: { isString: 'name must be a string' } });
    const item = Object.assign(new ValidationError(), { property: '1', children: [leaf] });
    const list = Object.assign(new ValidationError(), { property: 'stops', children: [item] });
    const top = Object.assign(new ValidationError(), { property: 'code', constraints: { a: 'code is bad', b: 'code is worse' } });
    expect(formatClassValidatorErrors([top, list])).toEqual([
      '"code": code is bad',
      '"code": code is worse',
      '"stops[1].name": name must be a string',
    ]);
  });
});
