/**
 * One place per mesh: no code outside a mesh's profile (src/mesh/<mesh>/) names a mesh. Every
 * token of every source file is read with TypeScript's own scanner (comments are skipped, strings,
 * templates, identifiers and regular expressions are read), and any token holding a mesh's name
 * fails, except in the few files that must list the meshes (ALLOWED).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MESH_NAMES } from '../src/mesh/names.js';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

/** Files that must name every mesh: the list of names and the one registration line. */
const ALLOWED = new Set(['src/mesh/names.ts', 'src/mesh/registry.ts']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The tokens of a source text that hold a mesh's name (any case), with their line. */
export function meshTokens(text: string, names: readonly string[]): { line: number; token: string }[] {
  const pattern = new RegExp(names.join('|'), 'i');
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const out: { line: number; token: string }[] = [];
  const lines = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest);
  /** Open braces inside each template expression being scanned (innermost last). */
  const templates: number[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    // A '/' where an expression starts is a regular expression literal: rescan it as one.
    if (
      (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) &&
      ![
        ts.SyntaxKind.Identifier,
        ts.SyntaxKind.CloseParenToken,
        ts.SyntaxKind.CloseBracketToken,
        ts.SyntaxKind.NumericLiteral,
      ].includes(previous)
    ) {
      kind = scanner.reScanSlashToken();
    }
    if (kind === ts.SyntaxKind.OpenBraceToken && templates.length) templates[templates.length - 1]!++;
    if (kind === ts.SyntaxKind.CloseBraceToken && templates.length) {
      if (templates[templates.length - 1] === 0) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) templates.pop();
      } else templates[templates.length - 1]!--;
    }
    if (kind === ts.SyntaxKind.TemplateHead) templates.push(0);
    const token = scanner.getTokenText();
    if (pattern.test(token))
      out.push({ line: ts.getLineAndCharacterOfPosition(lines, scanner.getTokenStart()).line + 1, token });
    previous = kind;
  }
  return out;
}

describe('mesh literals', () => {
  it('finds a mesh named in a string, a template, an identifier or a regular expression, never in a comment', () => {
    const names = ['linkerd', 'istio'];
    const text = [
      '// linkerd in a comment',
      "/* istio */ const a = 'x';",
      "const b = 'linkerd.io/inject';",
      'const c = `${a}-istiod`;',
      'const linkerdValues = 1;',
      'const r = a / b / /sidecar\\.istio\\.io/.test(a);',
    ].join('\n');
    expect(meshTokens(text, names).map((t) => t.line)).toEqual([3, 4, 5, 6]);
  });

  it('no source file outside the mesh profiles names a mesh', () => {
    const offenders: string[] = [];
    for (const file of files(SRC)) {
      const rel = relative(ROOT, file).split('\\').join('/');
      if (ALLOWED.has(rel) || MESH_NAMES.some((n) => rel.startsWith(`src/mesh/${n}/`))) continue;
      for (const t of meshTokens(readFileSync(file, 'utf8'), MESH_NAMES))
        offenders.push(`${rel}:${t.line}: ${t.token.slice(0, 80)}`);
    }
    expect(offenders).toEqual([]);
  });

  it('every profile lives in its own directory under its own name', () => {
    for (const n of MESH_NAMES) expect(readdirSync(join(SRC, 'mesh', n))).toContain('index.ts');
  });
});
