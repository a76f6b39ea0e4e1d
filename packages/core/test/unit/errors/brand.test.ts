import { DefinitionError, McpError, ParseError, ToolError } from '@typemcp/core';

/** A second, separately loaded copy of the error classes, as a nested install would give. */
function loadSecondCopy(): typeof import('../../../src/errors') {
  let copy!: typeof import('../../../src/errors');
  jest.isolateModules(() => {
    copy = require('../../../src/errors');
  });
  return copy;
}

describe('error classes across copies of @typemcp/core', () => {
  const other = loadSecondCopy();

  it('are distinct classes', () => {
    expect(other.ToolError).not.toBe(ToolError);
  });

  it('recognize each other with instanceof, both ways', () => {
    expect(new other.ToolError('x')).toBeInstanceOf(ToolError);
    expect(new ToolError('x')).toBeInstanceOf(other.ToolError);
    expect(new other.DefinitionError('INVALID_OPTION', 'x')).toBeInstanceOf(DefinitionError);
    expect(new other.ParseError('x')).toBeInstanceOf(McpError);
    expect(new other.ParseError('x')).toBeInstanceOf(ParseError);
  });

  it('keep the class chain: a parent is not an instance of a child, nor of a sibling', () => {
    expect(new other.McpError(-1, 'x')).not.toBeInstanceOf(ParseError);
    expect(new other.ToolError('x')).not.toBeInstanceOf(McpError);
    expect(new Error('x')).not.toBeInstanceOf(ToolError);
    expect({ name: 'ToolError', message: 'x' }).not.toBeInstanceOf(ToolError);
    expect(null).not.toBeInstanceOf(McpError);
  });

  it('leave subclasses declared elsewhere with the ordinary check', () => {
    class QuotaError extends McpError {}
    expect(new QuotaError(-1, 'over quota')).toBeInstanceOf(QuotaError);
    expect(new QuotaError(-1, 'over quota')).toBeInstanceOf(McpError);
    expect(new McpError(-1, 'x')).not.toBeInstanceOf(QuotaError);
    expect(new other.McpError(-1, 'x')).not.toBeInstanceOf(QuotaError);
  });
});
