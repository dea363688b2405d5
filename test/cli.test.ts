import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../src/cli.js';
import { runCli } from './helpers/cli.js';
import { FIXTURES, baseObjects, overlay, fixtureObjects, snapshotFrom } from './helpers/fixtures.js';
import { snapshotText } from '../src/cluster/snapshot-file.js';

const ROOT = join(import.meta.dirname, '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8'));
const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false }).compile(schema);
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-cli-'));
const LINKERD = join(FIXTURES, 'healthy/linkerd.yaml');
const ISTIO = join(FIXTURES, 'healthy/istio.yaml');

/** A snapshot file: the healthy Linkerd cluster plus an opted-out workload (one warning). */
function optedOutFile(): string {
  const p = join(tmp, 'opted-out.json');
  writeFileSync(
    p,
    JSON.stringify({
      kind: 'List',
      items: overlay(baseObjects('linkerd'), fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml')),
    }),
  );
  return p;
}

describe('meta commands', () => {
  it('--version prints the package version, exit 0', async () => {
    const r = await runCli(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('--help lists the commands, exit 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['check', 'snapshot', 'checks']) expect(r.stdout).toContain(c);
  });

  it('checks -o json lists id, code, severity and title of every check', async () => {
    const r = await runCli(['checks', '-o', 'json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.find((c: any) => c.id === 'pod-opted-out')).toMatchObject({ code: 'MD1002', severity: 'warning' });
  });
});

describe('usage errors exit 2 (never 1, which means findings)', () => {
  it.each([
    [['check', '--bogus'], /unknown option/],
    [['check', '-o', 'xml', '--snapshot', LINKERD], /argument 'xml' is invalid/],
    [['check', '-n', 'shop', '-A', '--snapshot', LINKERD], /cannot be used together/],
    [['check', '--only', 'no-such-check', '--snapshot', LINKERD], /unknown check "no-such-check"/],
    [['check', '--request-timeout', '5x', '--snapshot', LINKERD], /--request-timeout takes a duration such as 30s/],
    [['check', '--request-timeout=-5s', '--snapshot', LINKERD], /--request-timeout cannot be negative/],
    [['check', '--timeout', '0', '--snapshot', LINKERD], /--timeout must be more than 0/],
    [['check', '-n', 'Bad_NS', '--snapshot', LINKERD], /invalid namespace name/],
    [['nonsense'], /unknown command/],
  ])('%j', async (args, message) => {
    const r = await runCli(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });
});

describe('unreadable snapshots: one line, exit 2, no stack trace', () => {
  const cases: [string, string | Buffer, RegExp][] = [
    ['empty.json', '', /the file is empty/],
    ['broken.json', '{"kind": "List", "items": [', /invalid JSON/],
    ['broken.yaml', 'kind: List\nitems: [\n  - {a: 1\n', /invalid YAML/],
    ['binary.json', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]), /binary file/],
    ['other.yaml', 'just: a config\nnot: kubernetes\n', /no Kubernetes objects found/],
  ];
  it.each(cases)('%s', async (name, content, message) => {
    const p = join(tmp, name);
    writeFileSync(p, content);
    const r = await runCli(['check', '--snapshot', p, '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a file too large to read (sparse, 300 MiB)', async () => {
    const p = join(tmp, 'huge.json');
    writeFileSync(p, '{');
    truncateSync(p, 300 * 1024 * 1024);
    const r = await runCli(['check', '--snapshot', p, '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/300 MiB is larger than the 256 MiB meshdoctor reads from kubectl dumps/);
  });

  it('a missing file', async () => {
    const r = await runCli(['check', '--snapshot', join(tmp, 'nope.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such file or directory/);
  });
});

describe("meshdoctor's own snapshot file (streamed, one object per line)", () => {
  const snapshot = () => {
    const snap = snapshotFrom(
      overlay(baseObjects('linkerd'), fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml')),
    );
    return [...snapshotText(snap)].join('');
  };

  it('is valid JSON, read back line by line with the same findings as the objects it holds', async () => {
    const text = snapshot();
    expect(JSON.parse(text).kind).toBe('MeshdoctorSnapshot');
    expect(text.split('\n').length).toBeGreaterThan(40);
    const p = join(tmp, 'own.json');
    writeFileSync(p, text);
    const r = JSON.parse((await runCli(['check', '-A', '--snapshot', p, '-o', 'json'])).stdout);
    expect(r.findings.map((f: any) => `${f.id} ${f.resource.name}`)).toEqual(['pod-opted-out cart']);
    expect(r.summary.checksSkipped).toBe(0);
  });

  it('a truncated or corrupted snapshot is one clear line, exit 2', async () => {
    const lines = snapshot().split('\n');
    for (const [name, text, message] of [
      ['truncated.json', lines.slice(0, 20).join('\n'), /the file ends early/],
      ['corrupt.json', [...lines.slice(0, 5), '{"kind": broken', ...lines.slice(5)].join('\n'), /line 6: invalid JSON/],
    ] as const) {
      const p = join(tmp, name);
      writeFileSync(p, text);
      const r = await runCli(['check', '--snapshot', p, '-o', 'json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('check --snapshot', () => {
  it('a healthy cluster: exit 0, schema-valid JSON with zero findings and nothing on stderr', async () => {
    for (const f of [LINKERD, ISTIO]) {
      const r = await runCli(['check', '-A', '--snapshot', f, '-o', 'json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
      expect(report.findings).toEqual([]);
      expect(report.summary.checksSkipped).toBe(0);
    }
  });

  it('human output whether piped or not (machine formats only with -o), colors only on a terminal', async () => {
    const piped = await runCli(['check', '--snapshot', LINKERD]);
    expect(piped.stdout).toContain('0 errors, 0 warnings, 0 info');
    expect(piped.stdout).not.toMatch(/\u001b\[/);
    const tty = await runCli(['check', '--snapshot', LINKERD], { tty: true });
    expect(tty.stdout).toContain('0 errors');
    expect(tty.stdout).toMatch(/\u001b\[/);
    const json = (await runCli(['check', '--snapshot', LINKERD, '-o', 'json'])).stdout;
    expect(() => JSON.parse(json)).not.toThrow();
    const explained = await runCli(['explain', 'deploy/web', '-n', 'shop', '--snapshot', LINKERD]);
    expect(explained.stdout).toMatch(/^Deployment shop\/web/);
    // explain takes check's certificate window (one run session, src/run/session.ts), not one of its own.
    const window = await runCli([
      'explain',
      'deploy/web',
      '-n',
      'shop',
      '--snapshot',
      LINKERD,
      '--cert-expiry-warning',
      '30',
    ]);
    expect(window.code).toBe(0);
    const bad = await runCli([
      'explain',
      'deploy/web',
      '-n',
      'shop',
      '--snapshot',
      LINKERD,
      '--cert-expiry-warning',
      'soon',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--cert-expiry-warning/);
  });

  it('--fail-on decides the exit code for the same findings, in every format', async () => {
    const f = optedOutFile();
    for (const o of ['json', 'table']) {
      expect((await runCli(['check', '-A', '--snapshot', f, '-o', o])).code).toBe(0); // a warning, default --fail-on error
      expect((await runCli(['check', '-A', '--snapshot', f, '-o', o, '--fail-on', 'warning'])).code).toBe(1);
      expect((await runCli(['check', '-A', '--snapshot', f, '-o', o, '--fail-on', 'info'])).code).toBe(1);
      expect((await runCli(['check', '-A', '--snapshot', f, '-o', o, '--fail-on', 'none'])).code).toBe(0);
    }
  });

  it('--only and --skip select checks by id or code', async () => {
    const f = optedOutFile();
    const only = JSON.parse((await runCli(['check', '-A', '--snapshot', f, '-o', 'json', '--only', 'MD1002'])).stdout);
    expect(only.findings.map((x: any) => x.id)).toEqual(['pod-opted-out']);
    expect(only.summary.checksRun).toBe(1);
    const skip = JSON.parse(
      (await runCli(['check', '-A', '--snapshot', f, '-o', 'json', '--skip', 'pod-opted-out'])).stdout,
    );
    expect(skip.findings.map((x: any) => x.id)).not.toContain('pod-opted-out');
  });

  it('--mesh istio ignores an installed Linkerd', async () => {
    const r = JSON.parse(
      (await runCli(['check', '-A', '--snapshot', optedOutFile(), '-o', 'json', '--mesh', 'istio'])).stdout,
    );
    expect(r.meshes).toEqual(['istio']);
    expect(r.findings.filter((x: any) => x.mesh === 'linkerd')).toEqual([]);
  });

  it('colors only on a terminal without NO_COLOR or --no-color', async () => {
    const f = optedOutFile();
    const esc = /\u001b\[/;
    expect((await runCli(['check', '-A', '--snapshot', f, '-o', 'table'])).stdout).not.toMatch(esc);
    expect((await runCli(['check', '-A', '--snapshot', f, '-o', 'table'], { tty: true })).stdout).toMatch(esc);
    expect(
      (await runCli(['check', '-A', '--snapshot', f, '-o', 'table'], { tty: true, env: { NO_COLOR: '1' } })).stdout,
    ).not.toMatch(esc);
    expect(
      (await runCli(['check', '-A', '--snapshot', f, '-o', 'table', '--no-color'], { tty: true })).stdout,
    ).not.toMatch(esc);
  });

  it('output is byte-identical whatever the order of objects in the input', async () => {
    const objects = overlay(
      baseObjects('both'),
      fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml'),
      fixtureObjects('checks/pod-opted-out/fires-istio.yaml'),
    );
    const a = join(tmp, 'order-a.json');
    const b = join(tmp, 'order-b.json');
    writeFileSync(a, JSON.stringify({ kind: 'List', items: objects }));
    writeFileSync(b, JSON.stringify({ kind: 'List', items: [...objects].reverse() }));
    for (const o of ['json', 'table']) {
      const ra = await runCli(['check', '-A', '--snapshot', a, '-o', o]);
      const rb = await runCli(['check', '-A', '--snapshot', b, '-o', o]);
      expect(ra.stdout.replace(a, 'X')).toBe(rb.stdout.replace(b, 'X'));
      expect(ra.stdout).toContain('pod-opted-out');
    }
  });

  it('strips terminal control sequences from cluster-provided text in the table', async () => {
    const evil = 'cart\u001b]8;;http://evil.example\u0007click\u001b]8;;\u0007\u001b[2J\rx';
    const objects = overlay(
      baseObjects('linkerd'),
      fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml').map((o) =>
        o.kind === 'Deployment' ? { ...o, metadata: { ...o.metadata, name: evil } } : o,
      ),
    );
    const p = join(tmp, 'evil.json');
    writeFileSync(p, JSON.stringify({ kind: 'List', items: objects }));
    const r = await runCli(['check', '-A', '--snapshot', p, '-o', 'table']);
    expect(r.stdout).toContain('pod-opted-out');

    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    // The fix command quotes the crafted name so that pasting it runs nothing else.
    const json = JSON.parse((await runCli(['check', '-A', '--snapshot', p, '-o', 'json'])).stdout);
    const fix: string = json.findings.find((f: any) => f.id === 'pod-opted-out').fix[0];
    // No POSIX quoting keeps a control character on one line, and stripping it would name another object: withheld, naming it escaped.
    expect(
      fix.startsWith("# fix withheld: a control character in 'deployment/cart\\x1b]8;;http://evil.example\\x07click"),
    ).toBe(true);
    expect(fix).not.toContain("$'");
    expect(fix).not.toMatch(/[\u0000-\u001f]/);
  });

  it('reads a directory of YAML and JSON files, and multi-document YAML', async () => {
    const dir = mkdtempSync(join(tmp, 'dir-'));
    writeFileSync(join(dir, 'a-cluster.yaml'), readFileSync(LINKERD));
    writeFileSync(join(dir, 'b-extra.yaml'), readFileSync(join(FIXTURES, 'checks/pod-opted-out/fires-linkerd.yaml')));
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const r = JSON.parse((await runCli(['check', '-A', '--snapshot', dir, '-o', 'json'])).stdout);
    expect(r.findings.map((f: any) => `${f.id} ${f.resource.name}`)).toContain('pod-opted-out cart');
  });
});

describe('reporter goldens', () => {
  // Fixed checks so that new checks do not churn the goldens; regenerate with UPDATE_GOLDEN=1.
  // A path relative to the repository (the tests' working directory): the same in every clone, so
  // the table wraps the same way wherever it runs.
  const args = (o: string) => [
    'check',
    '-A',
    '--snapshot',
    'test/fixtures/golden-cluster.yaml',
    '-o',
    o,
    '--only',
    'namespace-not-enabled,pod-opted-out',
  ];
  for (const [o, file] of [
    ['table', 'table.txt'],
    ['json', 'report.json'],
    ['sarif', 'report.sarif'],
    ['junit', 'report.junit.xml'],
    ['markdown', 'report.md'],
  ] as const) {
    it(`-o ${o}`, async () => {
      const r = await runCli(args(o));
      const out = r.stdout.replaceAll(FIXTURES, '<fixtures>');
      const golden = join(ROOT, 'test/golden', file);
      if (process.env.UPDATE_GOLDEN) writeFileSync(golden, out);
      expect(out).toBe(readFileSync(golden, 'utf8'));
      if (o === 'json') expect(validate(JSON.parse(r.stdout)), JSON.stringify(validate.errors)).toBe(true);
    });
  }
});
