/**
 * The README and docs/ show real output: their generated sections (scripts/readme.mjs) must match
 * what the CLI prints now, so a behaviour change that is not re-documented fails here. They are
 * read as a Markdown renderer reads them (marked), so that an example whose fence is closed early
 * by a fence in the output (the Markdown report's ```sh) cannot hide the text after it, and every
 * relative link must lead to a file and heading that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Lexer, type Token } from 'marked';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { runCli } from './helpers/cli.js';

const ROOT = join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
/** README.md and every Markdown file of docs/ (paths relative to the repository). */
const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
].sort();
const readme = read('README.md');
const section = (text: string, name: string) =>
  new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(text)?.[1] ?? '';
/** An example block as scripts/readme.mjs writes it: its fence, language, arguments and output. */
const EXAMPLE = /<!-- example:start -->\n(`{3,})(\w+)\n\$ meshdoctor ([^\n]*)\n([\s\S]*?)\n?\1\n<!-- example:end -->/g;
const examples = (file: string) =>
  [...read(file).matchAll(EXAMPLE)].map(([, fence, , args, shown]) => ({
    file,
    fence: fence!,
    args: args!,
    shown: `${shown}\n`,
  }));

/** Every token of a document, nested ones (list items, table cells, links in text) included. */
function* walk(tokens: Token[]): Generator<Token> {
  for (const t of tokens) {
    yield t;
    const any = t as any;
    if (Array.isArray(any.tokens)) yield* walk(any.tokens);
    if (Array.isArray(any.items)) yield* walk(any.items);
    if (t.type === 'table') for (const cell of [...any.header, ...any.rows.flat()]) yield* walk(cell.tokens);
  }
}
const lex = (file: string) => [...walk(new Lexer({ gfm: true }).lex(read(file)))];

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
const slug = (heading: string) =>
  heading
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  for (const t of lex(file)) if (t.type === 'heading') out.add(slug((t as any).text));
  for (const m of read(file).matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1]!);
  return out;
}

describe('README and docs/', () => {
  it('every example shows exactly what the command printed above it prints today (80 columns)', async () => {
    const all = FILES.flatMap(examples);
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(examples('README.md').length).toBeGreaterThanOrEqual(1);
    for (const { file, args, shown } of all) {
      const r = await runCli(args.split(' ').filter(Boolean), { env: { COLUMNS: '80' } });
      expect(r.code, `${file}: ${args}`).not.toBe(2);
      expect(shown, `${file}: ${args}`).toBe(r.stdout);
    }
  });

  it('a Markdown renderer sees each example as one code block holding the command and its whole output', () => {
    for (const file of FILES) {
      const blocks = lex(file)
        .filter((t) => t.type === 'code')
        .map((t) => (t as any).text as string);
      for (const { args, shown } of examples(file))
        expect(blocks, `${file}: ${args}`).toContain(`$ meshdoctor ${args}\n${shown.replace(/\n$/, '')}`);
    }
  });

  it('the text after the Markdown report example is text, not part of the example', () => {
    const md = examples('docs/ci.md').find((e) => e.args.includes('-o markdown'));
    expect(md?.shown).toContain('```sh');
    expect(md!.fence.length).toBeGreaterThan(3);
    const paragraphs = lex('docs/ci.md')
      .filter((t) => t.type === 'paragraph')
      .map((t) => (t as any).text as string);
    expect(paragraphs.some((p) => p.startsWith('GitHub code scanning'))).toBe(true);
  });

  it('every relative link leads to a file that exists, and to a heading or anchor of it', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of FILES) {
      for (const t of lex(file)) {
        if (t.type !== 'link') continue;
        const href = (t as any).href as string;
        if (/^[a-z]+:/i.test(href)) continue;
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path ? resolve(ROOT, dirname(file), decodeURIComponent(path)) : join(ROOT, file);
        checked++;
        if (!existsSync(target)) broken.push(`${file}: ${href} (no ${relative(ROOT, target)})`);
        else if (
          anchor &&
          (!target.endsWith('.md') || statSync(target).isDirectory() || !anchors(relative(ROOT, target)).has(anchor))
        )
          broken.push(`${file}: ${href} (no such heading)`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('the demo example, first in the README, is what `npm run demo` runs', () => {
    const pkg = JSON.parse(read('package.json'));
    const first = examples('README.md')[0]!.args;
    expect(pkg.scripts.demo).toBe(`npm run build && node bin/meshdoctor.js ${first}`);
  });

  it('docs/checks/README.md lists every check with its code, severity and description; the README links it', () => {
    const table = section(read('docs/checks/README.md'), 'checks');
    for (const c of CHECKS) {
      expect(table).toContain(`\`${c.code}\` | [\`${c.id}\`](${c.id}.md) | ${c.severity} | ${c.description} |`);
      expect(read(`docs/checks/${c.id}.md`)).toMatch(new RegExp(`^# ${c.id} \\(${c.code}, ${c.severity}\\)`));
    }
    expect(readme).toContain('](docs/checks/README.md)');
  });

  it('gives the two commands: install and run, then test; and fits in 300 lines', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    const ci = read('.ci/run');
    expect(ci).toContain('npm ci');
    expect(ci).toContain('npm test');
    // The slow tests (test/slow/) run apart, and CI runs them too.
    expect(readme).toContain('npm run test:slow');
    expect(ci).toContain('npm run test:slow');
    expect(read('docs/contributing.md')).toContain('npm run test:slow');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });
});
