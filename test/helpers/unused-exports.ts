/**
 * The exports of src/ that nothing imports, found with the TypeScript compiler over the files the
 * tests type-check (tsconfig.test.json: src, test, bench, scripts). An export is used when an
 * identifier in another file resolves to it: a named, default or type import, a property of a
 * namespace import, a name destructured from `await import(...)`, or a re-export someone imports
 * through (each module of the chain counts). A name used only in its own file needs no export.
 */
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');

/** "src/x.ts: name" for every export of src/ no other file uses, sorted. */
export function unusedExports(): string[] {
  const configFile = join(ROOT, 'tsconfig.test.json');
  const config = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configFile));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes('/node_modules/'));

  const used = new Set<ts.Symbol>();
  const fileOf = (s: ts.Symbol) => s.declarations?.[0]?.getSourceFile().fileName;
  /** Mark a symbol used from `from`, with every alias between (re-exports) and the original. */
  const use = (s: ts.Symbol, from: string) => {
    for (let x: ts.Symbol | undefined = s, n = 0; x && n < 20; n++) {
      if (fileOf(x) !== from) used.add(x);
      if (!(x.flags & ts.SymbolFlags.Alias)) break;
      const next: ts.Symbol | undefined = checker.getImmediateAliasedSymbol(x);
      if (!next || next === x) break;
      x = next;
    }
  };
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const s = checker.getSymbolAtLocation(node);
        if (s) use(s, file.fileName);
        // `const { a } = await import('./x.js')`: the binding names a property of the module.
        if (
          ts.isBindingElement(node.parent) &&
          node.parent.name === node &&
          ts.isObjectBindingPattern(node.parent.parent)
        ) {
          const type = checker.getTypeAtLocation(node.parent.parent);
          const prop = type.getProperty(node.parent.propertyName?.getText() ?? node.text);
          if (prop) use(prop, file.fileName);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  const out: string[] = [];
  for (const file of files) {
    const path = relative(ROOT, file.fileName);
    if (!path.startsWith('src/')) continue;
    const module = checker.getSymbolAtLocation(file);
    if (!module) continue;
    for (const e of checker.getExportsOfModule(module)) {
      if (!used.has(e)) out.push(`${path}: ${e.name}`);
    }
  }
  return out.sort();
}
