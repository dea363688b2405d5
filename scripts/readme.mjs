#!/usr/bin/env node
// Regenerates the generated sections of README.md from the built CLI (run `npm run build` first):
// the checks table, the demo output, the explain example and (when present) the benchmark table.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const cli = (...args) => {
  try {
    return execFileSync('node', ['bin/meshdoctor.js', ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  } catch (e) {
    if (e.status === 1) return e.stdout; // findings: expected in the demo
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
const rows = checks.map(
  (c) => `| <a id="${c.id}"></a>\`${c.code}\` | [\`${c.id}\`](docs/checks/${c.id}.md) | ${c.severity} | ${c.description} |`,
);
readme = replace(readme, 'checks', ['| code | id | default severity | what it finds |', '|---|---|---|---|', ...rows].join('\n'));

const demo = cli('check', '-A', '--snapshot', 'demo/cluster.json', '-o', 'table').replace(/^meshdoctor \S+ ·/, 'meshdoctor ·');
readme = replace(readme, 'demo-output', `What \`npm run demo\` prints (the bundled demo cluster, \`demo/cluster.json\`):\n\n\`\`\`text\n${demo}\`\`\``);

const explain = cli('explain', 'deployment/cart', '-n', 'shop', '--snapshot', 'demo/cluster.json', '-o', 'table', '--mesh', 'linkerd');
readme = replace(readme, 'explain-output', `\`meshdoctor explain deployment/cart -n shop\` on the demo cluster:\n\n\`\`\`text\n${explain}\`\`\`\n\nEach webhook of each installed mesh is evaluated as the API server would (every selector term with its result), then the injector's own rules, then the verdict, then what runs now against what a restart would bring, and the findings about that workload. \`-o json\` gives the same as data. No anchor tool does all of this: \`istioctl x check-inject\` looks at labels only.`);

if (existsSync('bench/out/results.md')) readme = replace(readme, 'bench', readFileSync('bench/out/results.md', 'utf8'));
writeFileSync('README.md', readme);
console.error('README.md updated');
