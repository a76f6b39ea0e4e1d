import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as core from '@typemcp/core';

const errorsDoc = readFileSync(path.resolve(__dirname, '../../../../docs/reference/errors.md'), 'utf8');
const definitionErrorSource = readFileSync(path.resolve(__dirname, '../../src/errors/DefinitionError.ts'), 'utf8');

/** Rows of the Markdown table whose header starts with `header`, as arrays of cell texts. */
function tableAfter(header: string): string[][] {
  const lines = errorsDoc.split('\n');
  const start = lines.findIndex((line) => line.trim().startsWith(header));
  if (start < 0) throw new Error(`docs/reference/errors.md has no table headed "${header}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows.push(line.trim().slice(1, -1).split('|').map((cell) => cell.trim()));
  }
  return rows;
}

const unquote = (cell: string) => cell.replace(/`/g, '').trim();

describe('docs/reference/errors.md', () => {
  const exportedErrorClasses = Object.entries(core)
    .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error)
    .map(([name]) => name)
    .sort();

  it('lists every exported error class with its code', () => {
    const rows = tableAfter('| Class | Code | When |');
    expect(rows.map((r) => unquote(r[0])).sort()).toEqual(exportedErrorClasses);
    for (const [cell, codeCell] of rows) {
      const name = unquote(cell);
      const ErrorClass = (core as Record<string, any>)[name];
      const code = unquote(codeCell);
      if (ErrorClass === core.McpError) expect(code).toBe('any');
      else if (ErrorClass.prototype instanceof core.McpError) expect(Number(code)).toBe(new ErrorClass('probe').code);
      else if (ErrorClass === core.ToolError) expect(code).toBe(new core.ToolError('probe').code);
      else if (ErrorClass === core.ClientCapabilityError) expect(code).toBe(new core.ClientCapabilityError('x', 'probe').code);
      else if ([core.SamplingRuleError, core.InvalidClientResponseError, core.RequestEndedError, core.UnavailableError].includes(ErrorClass)) {
        expect(code).toBe(new ErrorClass('probe').code);
      }
      else if (ErrorClass === core.DefinitionError) expect(code).toMatch(/DefinitionError code/i);
      else throw new Error(`No rule to check the documented code of ${name}`);
    }
  });

  it('lists every DefinitionError code', () => {
    const union = definitionErrorSource.slice(definitionErrorSource.indexOf('export type DefinitionErrorCode'));
    const codes = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort();
    expect(codes.length).toBeGreaterThan(0);
    expect(tableAfter('| DefinitionError code | Meaning |').map((r) => unquote(r[0])).sort()).toEqual(codes);
  });

  it('matches the wire codes of ErrorCode', () => {
    expect(core.ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ConnectionClosed: -32000,
      RequestTimeout: -32001,
      ResourceNotFound: -32002,
      AccessDenied: -32003,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
      RateLimited: -32023,
    });
  });
});
