/** `-o jsonpath=TEMPLATE` (issue 35 item 7): kubectl's JSONPath subset over the `-o json` document. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalJsonPath, parseJsonPath } from '../src/report/jsonpath.js';
import { runCli } from './helpers/cli.js';
import { FIXTURES } from './helpers/fixtures.js';

const GOLDEN = join(FIXTURES, 'golden-cluster.yaml');
const jp = async (template: string) => runCli(['check', '-A', '--snapshot', GOLDEN, '-o', `jsonpath=${template}`]);
const doc = async () => JSON.parse((await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'json'])).stdout);

describe('-o jsonpath against the golden cluster', () => {
  it('prints fields, indexes, wildcards and recursive descent as kubectl does', async () => {
    const d = await doc();
    const r = await jp('{.summary.total}');
    const full = await runCli(['check', '-A', '--snapshot', GOLDEN]);
    expect(r.code).toBe(full.code);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(String(d.summary.total));
    expect((await jp('{.findings[0].id}')).stdout).toBe(d.findings[0].id);
    expect((await jp('{.findings[-1].id}')).stdout).toBe(d.findings.at(-1).id);
    expect((await jp('{.findings[*].resource.name}')).stdout).toBe(
      d.findings.map((f: any) => f.resource.name).join(' '),
    );
    expect((await jp('{.tool}')).stdout).toBe(JSON.stringify(d.tool));
    expect((await jp('{@}')).stdout).toBe(JSON.stringify(d));
    expect((await jp('name: {.tool.name}')).stdout).toBe('name: meshdoctor');
    expect((await jp('{.nothing.here}')).stdout).toBe('');
    const names: string[] = [];
    const walk = (v: any) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (k === 'name') names.push(typeof x === 'string' ? x : JSON.stringify(x));
          walk(x);
        }
    };
    walk(d);
    expect((await jp('{..name}')).stdout).toBe(names.join(' '));
  });

  it('range with a filter, quoted literals', async () => {
    const d = await doc();
    const deploys = d.findings.filter((f: any) => f.resource.kind === 'Deployment');
    expect(deploys.length).toBeGreaterThan(0);
    expect(deploys.length).toBeLessThan(d.findings.length);
    const r = await jp('{range .findings[?(@.resource.kind=="Deployment")]}{.id}{"\\t"}{.resource.name}{"\\n"}{end}');
    expect(r.stdout).toBe(deploys.map((f: any) => `${f.id}\t${f.resource.name}\n`).join(''));
    expect((await jp('{.findings[?(@.severity=="error")].id}')).stdout).toBe('');
    const others = await jp('{.findings[?(@.resource.kind!="Deployment")].id}');
    expect(others.stdout).toBe(
      d.findings
        .filter((f: any) => f.resource.kind !== 'Deployment')
        .map((f: any) => f.id)
        .join(' '),
    );
  });

  it('a bad template: one line, kubectl wording, exit 2, nothing on stdout', async () => {
    for (const t of [
      '',
      '{.findings',
      '{range .findings[*]}{.id}',
      '{end}',
      '{.a[?(@.x=~"y")]}',
      '{"\\q"}',
      '{.a}{#}',
    ]) {
      const r = await jp(t);
      expect(r.code, t).toBe(2);
      expect(r.stdout, t).toBe('');
      expect(r.stderr, t).toMatch(/^meshdoctor: error parsing jsonpath .*, .+\n$/);
      expect(r.stderr.split('\n').length, t).toBe(2);
    }
    const long = await jp(`{.a}${'x'.repeat(5000)}`);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/longer than 4096/);
    const bare = await runCli(['check', '--snapshot', GOLDEN, '-o', 'jsonpath']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/needs a template/);
  });
});

describe('jsonpath evaluation', () => {
  const run = (t: string, d: unknown) => evalJsonPath(parseJsonPath(t), d);

  it('escapes control and invisible characters in values, not in the template literals', () => {
    const d = { a: 'x\u001b]52;c;AAAA\u0007y', b: ['ok\u202eevil', 'tab\there\nline'], c: { k: 'v\u200b' } };
    expect(run('{.a}{"\\n"}', d)).toBe('x\\x1b]52;c;AAAA\\x07y\n');
    expect(run('{.b[*]}', d)).toBe('ok\\u202eevil tab\\there\\nline');
    expect(run('{.c}', d)).toBe('{"k":"v\\u200b"}');
    expect(run('{..k}', d)).toBe('v\\u200b');
  });

  it('numbers, booleans, null, slices, bracket keys, numeric filters', () => {
    const d = { n: [1, 2, 3, 4], t: true, z: null, 'a.b': 'dot', xs: [{ v: 1 }, { v: 5 }, { w: 2 }] };
    expect(run('{.n[1:3]} {.t} {.z}', d)).toBe('2 3 true null');
    expect(run("{['a.b']} {.a\\.b}", d)).toBe('dot dot');
    expect(run('{.xs[?(@.v>2)].v}', d)).toBe('5');
    expect(run('{.xs[?(@.v==1)].v}', d)).toBe('1');
    expect(run('{.xs[?(@.w)].w}', d)).toBe('2');
    expect(run('{range .xs[*]}[{.v}]{end}', d)).toBe('[1][5][]');
  });

  it('is bounded: nested ranges over a large document stop with an error', () => {
    const d = { a: Array.from({ length: 2000 }, (_, i) => i) };
    expect(() => run('{range .a[*]}{range @}{end}{end}', d)).not.toThrow();
    const big = { a: Array.from({ length: 3000 }, () => ({ b: Array.from({ length: 1000 }, () => 1) })) };
    expect(() => run('{range .a[*]}{range .b[*]}{@}{end}{end}', big)).toThrow(/visits more than/);
  });
});

describe('explain -o jsonpath', () => {
  it('prints the template over the document explain -o json prints', async () => {
    const args = ['explain', 'deployment/cart', '-n', 'shop', '--snapshot', GOLDEN];
    const j = await runCli([...args, '-o', 'json']);
    const d = JSON.parse(j.stdout);
    const r = await runCli([...args, '-o', 'jsonpath={.tool.name} {.schemaVersion}']);
    expect(r.code).toBe(j.code);
    expect(r.stdout).toBe('meshdoctor 2');
    expect((await runCli([...args, '-o', 'jsonpath={@}'])).stdout).toBe(JSON.stringify(d));
    const bad = await runCli([...args, '-o', 'jsonpath={.target']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^meshdoctor: error parsing jsonpath \{\.target, unclosed action\n$/);
    expect((await runCli([...args, '-o', 'go-template={{.}}'])).code).toBe(2);
  });
});
