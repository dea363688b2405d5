#!/usr/bin/env node
// Regenerates the generated parts of README.md from the built CLI (run `npm run build` first):
// the checks table, every example block, and (when present) the benchmark table.
//
// An example is a fenced block between `<!-- example:start -->` and `<!-- example:end -->` whose
// first line is `$ meshdoctor ARGS`: the rest of the block is what exactly that command prints
// (at 80 columns, no colors). test/readme.test.ts runs every example again and compares.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const cli = (...args) => {
  try {
    return execFileSync('node', ['bin/meshdoctor.js', ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '80' } });
  } catch (e) {
    if (typeof e.status === 'number' && e.status !== 2) return e.stdout; // findings or incomplete: expected in examples
    throw e;
  }
};

function replace(text, name, body) {
  const re = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
  if (!re.test(text)) throw new Error(`README has no ${name} section`);
  return text.replace(re, `$1\n${body.trimEnd()}\n$2`);
}

let readme = readFileSync('README.md', 'utf8');
const checks = JSON.parse(cli('checks', '-o', 'json'));
const rows = checks.map((c) => `| <a id="${c.id}"></a>\`${c.code}\` | [\`${c.id}\`](docs/checks/${c.id}.md) | ${c.severity} | ${c.description} |`);
readme = replace(readme, 'checks', ['| code | id | default severity | what it finds |', '|---|---|---|---|', ...rows].join('\n'));

readme = readme.replace(/(<!-- example:start -->\n```(\w+)\n\$ meshdoctor ([^\n]*)\n)[\s\S]*?(```\n<!-- example:end -->)/g, (_all, head, _lang, args, tail) => {
  const out = cli(...args.split(' ').filter(Boolean));
  return `${head}${out.endsWith('\n') ? out : `${out}\n`}${tail}`;
});

if (existsSync('bench/out/results.md')) readme = replace(readme, 'bench', readFileSync('bench/out/results.md', 'utf8'));
writeFileSync('README.md', readme);
console.error('README.md updated');
