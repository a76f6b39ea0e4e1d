import { RequestEndedError, withoutStack } from '../../../src/errors';

describe('withoutStack', () => {
  it('makes the error with no stack frames and restores the limit', () => {
    const before = Error.stackTraceLimit;
    const error = withoutStack(() => new RequestEndedError('ended'));
    expect(error).toBeInstanceOf(RequestEndedError);
    expect(error.message).toBe('ended');
    expect(error.stack).toBe('RequestEndedError: ended');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('traced').stack).toMatch(/\n\s+at /);
  });

  it('restores the limit when making the error throws', () => {
    const before = Error.stackTraceLimit;
    expect(() =>
      withoutStack(() => {
        throw new TypeError('cannot make it');
      }),
    ).toThrow('cannot make it');
    expect(Error.stackTraceLimit).toBe(before);
  });
});
