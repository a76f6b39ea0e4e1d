/**
 * Validators compiled by typemcp build answer exactly as ajv compiling at run time does, and
 * need no code generation: the same calls (valid, invalid, a hand-written schema, an
 * elicitation form, prompt arguments) in a child process with and without the precompiled
 * module, the latter under --disallow-code-generation-from-strings, as on Workers.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectSchemas, generateValidatorsModule } from '../../src/build';
import { runTsPath } from '../../../../test-support/spawnServer';

const answers = path.join(__dirname, 'fixtures', 'answers.ts');

function run(flags: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return spawnSync(process.execPath, [...flags, '-r', runTsPath, answers], { encoding: 'utf8', env, timeout: 60_000 });
}

describe('precompiled validators', () => {
  let validators: string;

  beforeAll(async () => {
    const { schemas, skipped } = await collectSchemas(() => require('./fixtures/providers'));
    expect(skipped).toEqual([]);
    // order's DTO, raw's hand-written schema (compiled as written), the form, the prompt's arguments,
    // and Address alone: any class-validator class is a DTO an elicitation could ask with.
    expect(schemas.map((s) => s.strict).sort()).toEqual([false, true, true, true, true]);
    validators = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-validators-')), 'validators.cjs');
    fs.writeFileSync(validators, generateValidatorsModule(schemas));
  });

  it('answers every call exactly as validators compiled at run time do, with no code generation at all', () => {
    const compiledAtRunTime = run([]);
    const precompiled = run(['--disallow-code-generation-from-strings', '-r', validators]);
    expect([compiledAtRunTime.status, precompiled.status]).toEqual([0, 0]);
    expect(precompiled.stderr).toBe(compiledAtRunTime.stderr);
    const [expected, actual] = [compiledAtRunTime, precompiled].map((r) => JSON.parse(r.stdout) as Array<Record<string, unknown>>);
    expect(actual).toEqual(expected);
    // What was compared: answers that passed, failed the schema, failed class-validator, a form answered wrongly and rightly, prompt arguments.
    const seen = JSON.stringify(expected);
    for (const part of ['ordered 2 small for Ada at Main St 1', '\\"quantity\\": must be <= 10', '\\"tag\\": must match pattern', 'raw 4', 'confirm=true', 'About decorators']) expect(seen).toContain(part);
    expect(seen).toContain('\\"confirm\\": must be boolean');
    expect(expected.length).toBe(11);
  });

  it('without them, a runtime that forbids code generation refuses to start and names typemcp build', () => {
    const refused = run(['--disallow-code-generation-from-strings']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('has no precompiled validator, and this runtime forbids compiling one (no code generation from strings): bundle the server with `typemcp build --target <runtime>`');
  });
});
