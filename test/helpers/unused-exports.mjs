/**
 * The exports of src/ that nothing imports, found with the TypeScript compiler over the files the
 * tests type-check (tsconfig.test.json: src, test, bench, scripts). An export is used when an
 * identifier in another file resolves to it: a named, default or type import, a property of a
 * namespace import, a name destructured from `await import(...)`, or a re-export someone imports
 * through (each module of the chain counts). A name used only in its own file needs no export.
 *
 * The program is the one `npm test`'s type check builds (scripts/typecheck.mjs runs
 * `checkTestsAndRecord`: `tsc -p tsconfig.test.json` through the compiler's own command line, same
 * output and exit code), so the suite does not build a third one: that step saves the list with a
 * record of everything the compiler asked the file system (each file read, by digest; each file and
 * directory probed, each directory listed, the working directory, the environment it read) and
 * `unusedExports()` takes the saved list only when every one of those answers is the same now, the
 * compiler is the same file and this one too (the analysis). The compiler is a function of those
 * answers (it reads nothing else), so equal answers are an equal program; any difference (a file
 * edited, added where an include or a module resolution looks, removed) builds the program here.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'meshdoctor', 'unused-exports.json');
const digest = (text) => createHash('sha256').update(text).digest('hex');

/** "src/x.ts: name" for every export of src/ that no other file of `program` uses, sorted. */
function unusedIn(program) {
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes('/node_modules/'));

  const used = new Set();
  const fileOf = (s) => s.declarations?.[0]?.getSourceFile().fileName;
  /** Mark a symbol used from `from`, with every alias between (re-exports) and the original. */
  const use = (s, from) => {
    for (let x = s, n = 0; x && n < 20; n++) {
      if (fileOf(x) !== from) used.add(x);
      if (!(x.flags & ts.SymbolFlags.Alias)) break;
      const next = checker.getImmediateAliasedSymbol(x);
      if (!next || next === x) break;
      x = next;
    }
  };
  for (const file of files) {
    const visit = (node) => {
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

  const out = [];
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

/** The program of tsconfig.test.json, built here. */
function buildProgram() {
  const configFile = join(ROOT, 'tsconfig.test.json');
  const config = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configFile));
  return ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
}

/** The system calls whose answers are recorded (everything the compiler reads through `ts.sys`). */
const QUERIES = [
  'readFile',
  'fileExists',
  'directoryExists',
  'getDirectories',
  'readDirectory',
  'realpath',
  'resolvePath',
  'getCurrentDirectory',
  'getExecutingFilePath',
  'getEnvironmentVariable',
  'getFileSize',
  'getModifiedTime',
];

/** An answer as recorded: file contents by digest, the rest as JSON. */
const answerOf = (value) =>
  typeof value === 'string' && value.length > 200
    ? `sha256:${digest(value)}`
    : value instanceof Date
      ? `date:${value.getTime()}`
      : JSON.stringify(value === undefined ? null : value);

/** What decides the result besides the compiler's answers: the compiler and this analysis, as files. */
function codeKey() {
  const compiler = createRequire(import.meta.url).resolve('typescript');
  return digest(
    [ts.version, digest(readFileSync(compiler)), digest(readFileSync(fileURLToPath(import.meta.url)))].join('\n'),
  );
}

/**
 * `tsc -p tsconfig.test.json` (the compiler's own command line: same output, same exit code), and
 * when it passes, the unused exports of its program saved for `unusedExports()` with the answers
 * the compiler got. Exits the process as tsc does.
 */
export function checkTestsAndRecord() {
  const calls = new Map();
  let consistent = true;
  const sys = Object.create(ts.sys);
  for (const name of QUERIES) {
    const real = ts.sys[name];
    if (typeof real !== 'function') continue;
    sys[name] = (...args) => {
      const value = real.apply(ts.sys, args);
      const key = JSON.stringify([name, args]);
      const answer = answerOf(value);
      const before = calls.get(key);
      if (before !== undefined && before !== answer) consistent = false; // changed during the run
      calls.set(key, answer);
      return value;
    };
  }
  let program;
  const exit = ts.sys.exit.bind(ts.sys);
  sys.exit = (code) => {
    if (code === 0 && program && consistent && typeof program.getTypeChecker === 'function') {
      try {
        const result = unusedIn(program);
        mkdirSync(dirname(CACHE), { recursive: true });
        const tmp = `${CACHE}.${process.pid}`;
        writeFileSync(tmp, JSON.stringify({ root: ROOT, code: codeKey(), calls: [...calls], result }));
        renameSync(tmp, CACHE);
      } catch (e) {
        // Only a saving: the test builds the program itself when nothing was saved.
        process.stderr.write(`unused exports not saved for the tests: ${e instanceof Error ? e.message : e}\n`);
      }
    }
    exit(code);
  };
  ts.executeCommandLine(sys, (p) => void (program = p), ['-p', join(ROOT, 'tsconfig.test.json')]);
}

/** The saved list, if every answer the compiler got is the same now; else undefined. */
function saved() {
  try {
    return savedFrom(JSON.parse(readFileSync(CACHE, 'utf8')));
  } catch {
    return undefined;
  }
}

/** The list a saved record holds, if every answer it records is the same now; else undefined. */
export function savedFrom(cache) {
  if (cache?.root !== ROOT || cache.code !== codeKey() || !Array.isArray(cache.calls)) return undefined;
  for (const [key, answer] of cache.calls) {
    const [name, args] = JSON.parse(key);
    if (!QUERIES.includes(name) || typeof ts.sys[name] !== 'function') return undefined;
    let now;
    try {
      now = answerOf(ts.sys[name](...args));
    } catch {
      return undefined;
    }
    if (now !== answer) return undefined;
  }
  return cache.result;
}

/** "src/x.ts: name" for every export of src/ no other file uses, sorted. */
export function unusedExports() {
  return saved() ?? unusedIn(buildProgram());
}

/** The record `npm test`'s type check saved, as read (undefined when there is none). */
export function savedRecord() {
  try {
    return JSON.parse(readFileSync(CACHE, 'utf8'));
  } catch {
    return undefined;
  }
}
