#!/usr/bin/env node
// Regenerates the generated parts of README.md and docs/ from the built CLI (run `npm run build`
// first): every example block, the checks table (docs/checks/README.md) and, when present, the
// benchmark table (docs/performance.md).
//
// An example is a fenced block between `<!-- example:start -->` and `<!-- example:end -->` whose
// first line is `$ meshdoctor ARGS`: the rest of the block is what exactly that command prints
// (at 80 columns, no colors). Its fence is one backtick longer than any run of backticks in the
// output (three at least), so a fence in the output (the Markdown report's) cannot close it.
// test/readme.test.ts runs every example again and compares.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cli = (...args) => {
  try {
    return execFileSync('node', ['bin/meshdoctor.js', ...args], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '80' },
    });
  } catch (e) {
    if (typeof e.status === 'number' && e.status !== 2) return e.stdout; // findings or incomplete: expected in examples
    throw e;
  }
};

function replace(text, name, body, file) {
  const re = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
  if (!re.test(text)) throw new Error(`${file} has no ${name} section`);
  return text.replace(re, `$1\n${body.trimEnd()}\n$2`);
}

/** README.md and every Markdown file under docs/: where examples may live. */
const markdownFiles = () =>
  [
    'README.md',
    ...readdirSync('docs', { recursive: true })
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ].sort();

const EXAMPLE = /<!-- example:start -->\n(`{3,})(\w+)\n\$ meshdoctor ([^\n]*)\n[\s\S]*?\n\1\n<!-- example:end -->/g;
const fence = (out) => '`'.repeat(Math.max(3, ...[...out.matchAll(/`+/g)].map((m) => m[0].length + 1)));

const edits = new Map();
const edit = (file, f) => edits.set(file, f(edits.get(file) ?? readFileSync(file, 'utf8')));

for (const file of markdownFiles()) {
  edit(file, (text) =>
    text.replace(EXAMPLE, (_all, _fence, lang, args) => {
      let out = cli(...args.split(' ').filter(Boolean));
      if (!out.endsWith('\n')) out += '\n';
      const f = fence(out);
      return `<!-- example:start -->\n${f}${lang}\n$ meshdoctor ${args}\n${out}${f}\n<!-- example:end -->`;
    }),
  );
}

const checks = JSON.parse(cli('checks', '-o', 'json'));
// One row per check, in code order: a new check is one new line.
const rows = checks.map(
  (c) => `| <a id="${c.id}"></a>\`${c.code}\` | [\`${c.id}\`](${c.id}.md) | ${c.severity} | ${c.description} |`,
);
edit('docs/checks/README.md', (text) =>
  replace(
    text,
    'checks',
    ['| code | id | default severity | what it finds |', '|---|---|---|---|', ...rows].join('\n'),
    'docs/checks/README.md',
  ),
);

if (existsSync('bench/out/results.md'))
  edit('docs/performance.md', (text) =>
    replace(text, 'bench', readFileSync('bench/out/results.md', 'utf8'), 'docs/performance.md'),
  );

for (const [file, text] of edits) {
  if (text === readFileSync(file, 'utf8')) continue;
  writeFileSync(file, text);
  console.error(`${file} updated`);
}
