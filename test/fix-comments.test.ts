/**
 * Every comment step written in src/ (comment`...`) is one safe line as its template stands: its literal
 * text has no character the paste guard withholds (src/util/shell.ts: `(`, `)`, `;`, an apostrophe...).
 * A fixture reaches only the comments its case renders; this reads them all, so a comment no fixture
 * renders cannot be withheld from a user as "# fix withheld".
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { fixLineProblem } from '../src/util/shell.js';

const SRC = join(import.meta.dirname, '..', 'src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** The comment`...` templates of a source text (read by the TypeScript parser), each interpolation made one plain word. */
export function commentTemplates(text: string): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(n) && ts.isIdentifier(n.tag) && n.tag.text === 'comment') {
      const t = n.template;
      out.push(
        ts.isNoSubstitutionTemplateLiteral(t)
          ? t.text
          : [t.head.text, ...t.templateSpans.map((s) => `x${s.literal.text}`)].join(''),
      );
    }
    ts.forEachChild(n, visit);
  };
  visit(ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true));
  return out;
}

describe('comment steps', () => {
  it('finds templates and names an unsafe one (the reader can fail)', () => {
    expect(commentTemplates('a(comment`ok ${b ? `in` : c} c`, comment`no (parens)`)')).toEqual([
      'ok x c',
      'no (parens)',
    ]);
    expect(fixLineProblem(`# ${'no (parens)'}`)).toBeDefined();
  });
  it('every comment template in src/ is a safe line', () => {
    const bad: string[] = [];
    let seen = 0;
    for (const f of files(SRC))
      for (const t of commentTemplates(readFileSync(f, 'utf8'))) {
        seen++;
        const problem = fixLineProblem(`# ${t}`);
        if (problem) bad.push(`${f.slice(SRC.length + 1)}: ${problem}: ${t.slice(0, 120)}`);
      }
    expect(seen).toBeGreaterThan(100);
    expect(bad).toEqual([]);
  });
});
