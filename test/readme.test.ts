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

describe('README', () => {
  it('every example shows exactly what the command printed above it prints today (80 columns)', async () => {
    const examples = [...readme.matchAll(/<!-- example:start -->\n```\w+\n\$ meshdoctor ([^\n]*)\n([\s\S]*?)```\n<!-- example:end -->/g)];
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const [, args, shown] of examples) {
      const r = await runCli(args!.split(' ').filter(Boolean), { env: { COLUMNS: '80' } });
      expect(r.code, args).not.toBe(2);
      expect(shown, args).toBe(r.stdout);
    }
  });

  it('the demo example is what `npm run demo` runs', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const first = /<!-- example:start -->\n```\w+\n\$ meshdoctor ([^\n]*)/.exec(readme)![1]!;
    expect(pkg.scripts.demo).toBe(`npm run build && node bin/meshdoctor.js ${first}`);
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
