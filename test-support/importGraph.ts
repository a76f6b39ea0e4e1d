/**
 * The imports of a folder of TypeScript sources, read with the TypeScript parser, for the
 * architecture tests: which file imports which (type-only imports marked), which packages,
 * and the import circles among the files.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as ts from 'typescript';

export interface Import {
  /** The importing file, relative to the root, with `/` separators. */
  from: string;
  /** What the import names: `./x`, `@typemcp/core`, `node:fs`. */
  specifier: string;
  /** For a relative import, the file it names (`x.ts` or `x/index.ts`, relative to the root; may not exist). */
  to?: string;
  /** Only types cross: `import type`, `export type`, every name marked `type`, or `import('…')` in a type. */
  typeOnly: boolean;
  /** The names taken (as their module exports them); `*` for a namespace or `export *`, `default`. */
  names: string[];
}

export interface SourceTree {
  /** The folder read. */
  root: string;
  /** Each `.ts` file under it (relative, `/` separators) with its text. */
  text: Map<string, string>;
  imports: Import[];
}

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? tsFiles(full) : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The `.ts` files under `root` and every import of each. */
export function readSources(root: string): SourceTree {
  const text = new Map(tsFiles(root).map((file) => [path.relative(root, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')]));
  const imports: Import[] = [];
  for (const [file, source] of text) {
    for (const found of importsOf(file, source)) {
      imports.push(found.specifier.startsWith('.') ? { ...found, to: resolveRelative(text, file, found.specifier) } : found);
    }
  }
  return { root, text, imports };
}

/** The file a relative import names: `x.ts`, or `x/index.ts` (a `.js` ending is the `.ts` file's). */
function resolveRelative(text: ReadonlyMap<string, string>, from: string, specifier: string): string {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.js$/, '');
  return text.has(`${target}.ts`) ? `${target}.ts` : `${target}/index.ts`;
}

function importsOf(file: string, source: string): Omit<Import, 'to'>[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Omit<Import, 'to'>[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean, names: string[]) => {
    if (specifier && ts.isStringLiteralLike(specifier)) found.push({ from: file, specifier: specifier.text, typeOnly, names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const names: string[] = [];
      let allTypes = clause !== undefined;
      if (clause?.name) {
        names.push('default');
        allTypes = false;
      }
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) {
        names.push('*');
        allTypes = false;
      } else if (bindings) {
        for (const element of bindings.elements) {
          names.push((element.propertyName ?? element.name).text);
          if (!element.isTypeOnly) allTypes = false;
        }
        if (bindings.elements.length === 0) allTypes = false;
      }
      add(node.moduleSpecifier, clause?.isTypeOnly === true || allTypes, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const elements = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const names = elements ? elements.map((element) => (element.propertyName ?? element.name).text) : ['*'];
      const allTypes = elements !== undefined && elements.length > 0 && elements.every((element) => element.isTypeOnly);
      add(node.moduleSpecifier, node.isTypeOnly || allTypes, names);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true, [node.qualifier ? (ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText(sourceFile)) : '*']);
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      add(node.arguments[0], false, ['*']);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/**
 * A file's code without its comments (a comment may name anything), read by the parser: a
 * `/*` or `//` in a string, a template or a regular expression stays. Lines stay where they were.
 */
export function code(source: string): string {
  const sourceFile = ts.createSourceFile('code.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const comments = new Map<number, ts.CommentRange>();
  // Comments stand in the trivia around the tokens: after a token on its line, and before the next.
  const visit = (node: ts.Node): void => {
    const children = node.getChildren(sourceFile);
    if (children.length === 0) {
      for (const comment of [...(ts.getTrailingCommentRanges(source, node.end) ?? []), ...(ts.getLeadingCommentRanges(source, node.pos) ?? [])]) comments.set(comment.pos, comment);
    }
    children.forEach(visit);
  };
  visit(sourceFile);
  let result = '';
  let at = 0;
  for (const comment of [...comments.values()].sort((a, b) => a.pos - b.pos)) {
    result += source.slice(at, comment.pos) + source.slice(comment.pos, comment.end).replace(/[^\n]/g, '');
    at = comment.end;
  }
  return result + source.slice(at);
}

/** Groups of files that reach each other through imports (Tarjan's strongly connected components), a file importing itself included. */
export function circles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (next.get(node) ?? []).includes(node)) found.push(group.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}
