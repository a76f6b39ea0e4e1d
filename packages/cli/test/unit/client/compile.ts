import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

/**
 * Type-checks TypeScript modules with the compiler (strict, no emit): each `name → text` becomes
 * a file of one program. Returns the diagnostics as `file:line: message` lines.
 */
export function typeCheck(files: Record<string, string>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-types-'));
  try {
    const names = Object.entries(files).map(([name, text]) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return file;
    });
    const program = ts.createProgram(names, { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, lib: ['lib.es2022.d.ts'], types: [], skipLibCheck: true });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file ? `${path.basename(diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: ` : '';
      return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
