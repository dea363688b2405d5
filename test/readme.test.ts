/**
 * The README shows real output: its generated sections (scripts/readme.mjs) must match what the
 * CLI prints now, so a behaviour change that is not re-documented fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { runCli } from './helpers/cli.js';

const ROOT = join(import.meta.dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = (name: string) => new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(readme)?.[1] ?? '';
const block = (text: string) => /```text\n([\s\S]*?)```/.exec(text)?.[1] ?? '';

describe('README', () => {
  it('shows what `npm run demo` prints today', async () => {
    const r = await runCli(['check', '-A', '--snapshot', 'demo/cluster.json', '-o', 'table']);
    expect(r.code).toBe(1);
    expect(block(section('demo-output'))).toBe(r.stdout.replace(/^meshdoctor \S+ ·/, 'meshdoctor ·'));
  });

  it('shows what `explain` prints today', async () => {
    const r = await runCli(['explain', 'deployment/cart', '-n', 'shop', '--snapshot', 'demo/cluster.json', '-o', 'table', '--mesh', 'linkerd']);
    expect(block(section('explain-output'))).toBe(r.stdout);
  });

  it('lists every check with its code, severity and description', () => {
    const table = section('checks');
    for (const c of CHECKS) {
      expect(table).toContain(`\`${c.code}\` | [\`${c.id}\`](docs/checks/${c.id}.md) | ${c.severity} | ${c.description} |`);
      expect(readFileSync(join(ROOT, 'docs/checks', `${c.id}.md`), 'utf8')).toMatch(new RegExp(`^# ${c.id} \\(${c.code}, ${c.severity}\\)`));
    }
  });

  it('gives the two commands: install and run, then test', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(ci).toContain('npm ci');
    expect(ci).toContain('npm test');
  });
});
