#!/usr/bin/env node
/**
 * `node test/helpers/transpile-src.mjs OUTDIR`: src/ compiled to OUTDIR as `npm run build` lays it
 * out (tsconfig.json's options), one file at a time with `ts.transpileModule`, without building a
 * program and type-checking it again: `npm test` type-checks src/ before any test runs
 * (scripts/typecheck.mjs), and a test file that only needs a runnable private copy of the CLI
 * (test/kube-apiserver.test.ts) spent a whole `tsc -p tsconfig.json` on it (13 CPU s on 2 cores).
 * The output was byte-identical to tsc's for all 273 files of src/ when this was written (module
 * ESNext for one file is what NodeNext emits for this package, `"type": "module"`). A construct
 * that needs the whole program to emit (a const enum imported from another file, a type
 * re-exported without `type`) fails loudly when the CLI loads, never passes silently.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');
const out = process.argv[2];
if (!out) throw new Error('usage: transpile-src.mjs OUTDIR');
const config = ts.readConfigFile(join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
const compilerOptions = {
  ...parsed.options,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
};
const src = join(root, 'src');
for (const file of parsed.fileNames) {
  if (file.endsWith('.d.ts')) continue;
  const r = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions,
    fileName: file,
    reportDiagnostics: true,
  });
  if (r.diagnostics?.length)
    throw new Error(
      `${file}: ${r.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')}`,
    );
  const target = join(out, relative(src, file).replace(/\.ts$/, '.js'));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, r.outputText);
}
