/**
 * Hostile files and stdin for `check --snapshot` and `check -f`: devices, FIFOs, endless input,
 * link loops, deep nesting, alias bombs, huge object counts, byte-order marks and malformed
 * snapshots. Each ends in one UserError line and exit 2 (or a normal run), never a crash, an
 * "internal error", a hang or memory without bound.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { decodeText, readStreamBounded } from '../src/util/io.js';
import { overlayManifests, type ManifestObject } from '../src/run/manifests.js';
import type { K8sObject } from '../src/util/types.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { FIXTURES } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const LINKERD = join(FIXTURES, 'healthy/linkerd.yaml');
const MiB = 1024 * 1024;
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-hostile-files-'));
afterAll(() => {
  chmodSync(tmp, 0o700);
  rmSync(tmp, { recursive: true, force: true });
});

let counter = 0;
/** A new file in the temp dir (a unique name per call). */
const file = (name: string, content: string | Buffer): string => {
  const dir = join(tmp, `f${counter++}`);
  mkdirSync(dir);
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};
const dir = (): string => {
  const d = join(tmp, `d${counter++}`);
  mkdirSync(d);
  return d;
};

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI in-process; stdin, when given, goes through the CLI's own bounded, decoding reader. */
async function cli(args: string[], stdin?: () => AsyncIterable<Buffer>): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    stdoutTTY: false,
    stderrTTY: false,
    env: {},
    readStdin: async (maxBytes) =>
      decodeText(await readStreamBounded(stdin ? stdin() : (async function* () {})(), maxBytes, 'stdin')),
  });
  return { code, stdout, stderr };
}

/** The CLI in a child process (tsx), for input that would block the test's own thread on old code. */
async function child(args: string[], timeout = 15_000): Promise<Result> {
  const code = `import('${join(ROOT, 'src/cli.ts')}').then(async (c) => { process.exitCode = await c.main(process.argv.slice(1), { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s), stdoutTTY: false, stderrTTY: false, env: {}, readStdin: async () => '' }); })`;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', code, ...args], {
      cwd: ROOT,
      timeout,
    });
    return { code: 0, stdout, stderr };
  } catch (e: any) {
    return { code: e.killed ? -1 : e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Exit 2, nothing on stdout, one line on stderr that is not an internal error; that line. */
function oneLine(r: Result): string {
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.stderr).toMatch(/^meshdoctor: [^\n]+\n$/);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  return r.stderr.slice('meshdoctor: '.length, -1);
}

/** Any outcome but a crash: exit 0/1/2, and on 2 one line that is not an internal error. */
function survives(r: Result): void {
  expect([0, 1, 2, 3]).toContain(r.code); // 3: a partial dump is an incomplete run
  if (r.code === 2) oneLine(r);
  else expect(r.stderr).not.toMatch(/internal error/);
}

const pod = (name: string, ns = 'shop', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, ...extra },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
});
const list = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
const deployYaml =
  'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop}\nspec:\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec: {containers: [{name: app, image: app:1}]}\n';

/** meshdoctor's own streamed layout, with the object lines given as is. */
const own = (
  objectLines: string[],
  head = '{"kind":"MeshdoctorSnapshot","apiVersion":"meshdoctor.io/v1","source":{"type":"live"},"scope":{"allNamespaces":true},"unavailable":{},"objects":{',
) => `${head}\n"pods":[\n${objectLines.join(',\n')}\n]\n}}\n`;

describe('1. devices and FIFOs are refused before they are read', () => {
  it('/dev/zero as --snapshot, as -f, and through a link inside a walked directory', async () => {
    expect(oneLine(await cli(['check', '--snapshot', '/dev/zero', '--max-bytes', '1']))).toBe(
      'cannot read snapshot /dev/zero: not a regular file (a device, FIFO or socket)',
    );
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', '/dev/zero', '--max-bytes', '1']))).toBe(
      'cannot read manifests /dev/zero: not a regular file (a device, FIFO or socket)',
    );
    const d = dir();
    symlinkSync('/dev/zero', join(d, 'zero.yaml'));
    expect(oneLine(await cli(['check', '--snapshot', d, '--max-bytes', '1']))).toMatch(
      /^cannot read snapshot .*zero\.yaml: not a regular file/,
    );
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', d, '--max-bytes', '1']))).toMatch(
      /^cannot read manifests .*zero\.yaml: not a regular file/,
    );
  });

  it('a FIFO as --snapshot or -f, or in a walked directory, is refused at once (opening it would wait for a writer)', async () => {
    const d = dir();
    const fifo = join(d, 'pipe.yaml');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here
    }
    for (const [args, what] of [
      [['--snapshot', fifo], `snapshot ${fifo}`],
      [['--snapshot', d], `snapshot ${fifo}`],
      [['--snapshot', LINKERD, '-f', fifo], `manifests ${fifo}`],
      [['--snapshot', LINKERD, '-f', d], `manifests ${fifo}`],
    ] as const) {
      // In a child: a blocking open would hang this thread, where no test timeout can end it.
      const r = await child(['check', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(`meshdoctor: cannot read ${what}: not a regular file (a device, FIFO or socket)\n`);
    }
  }, 60_000);

  it("meshdoctor's own snapshot: a line without end is cut at --max-bytes; objects of a kind at --max-objects", async () => {
    const endless = file('own.json', `${own([]).split('\n')[0]}\n"pods":[\n{"a":"${'x'.repeat(MiB + 10)}`);
    expect(oneLine(await cli(['check', '--snapshot', endless, '--max-bytes', '1']))).toBe(
      `cannot read snapshot ${endless}: line 3: longer than 1 MiB (--max-bytes)`,
    );
    const many = file('own.json', own(Array.from({ length: 5 }, (_, i) => JSON.stringify(pod(`p${i}`)))));
    expect(oneLine(await cli(['check', '--snapshot', many, '--max-objects', '3']))).toBe(
      `cannot read snapshot ${many}: more than 3 pods (--max-objects)`,
    );
    survives(await cli(['check', '--snapshot', many, '--max-objects', '5']));
    // The same objects as kubectl output, and as meshdoctor's layout read whole (pretty-printed).
    const kubectl = file('pods.json', list(Array.from({ length: 5 }, (_, i) => pod(`p${i}`))));
    expect(oneLine(await cli(['check', '--snapshot', kubectl, '--max-objects', '3']))).toBe(
      `cannot read snapshot ${kubectl}: more than 3 pods (--max-objects)`,
    );
    const pretty = file(
      'own.json',
      JSON.stringify(JSON.parse(own(Array.from({ length: 5 }, (_, i) => JSON.stringify(pod(`p${i}`))))), null, 2),
    );
    expect(oneLine(await cli(['check', '--snapshot', pretty, '--max-objects', '3']))).toBe(
      `cannot read snapshot ${pretty}: more than 3 pods (--max-objects)`,
    );
  });
});

describe('2. -f files and stdin are capped at --max-bytes', () => {
  it('a -f file larger than --max-bytes', async () => {
    const big = file('big.yaml', `${deployYaml}# ${'x'.repeat(2 * MiB)}\n`);
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', big, '--max-bytes', '1']))).toBe(
      `cannot read manifests ${big}: larger than 1 MiB (--max-bytes)`,
    );
    survives(await cli(['check', '--snapshot', LINKERD, '-f', big, '--max-bytes', '3']));
  });

  it('endless stdin to -f -', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    async function* endless() {
      for (;;) yield chunk;
    }
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', '-', '--max-bytes', '1'], endless))).toBe(
      'cannot read stdin: more than 1 MiB (--max-bytes)',
    );
  });

  it('a snapshot file larger than --max-bytes (kubectl output) names the limit', async () => {
    const big = file('big.yaml', `${list([pod('a')])}\n${' '.repeat(2 * MiB)}`);
    expect(oneLine(await cli(['check', '--snapshot', big, '--max-bytes', '1']))).toMatch(
      /^cannot read snapshot .*: 2 MiB is larger than the 1 MiB meshdoctor reads from kubectl dumps \(--max-bytes\); save it with/,
    );
  });
});

describe('3. dangling links and link loops', () => {
  it('given directly: one line naming the reason', async () => {
    const d = dir();
    symlinkSync(join(d, 'nowhere.yaml'), join(d, 'dangling.yaml'));
    symlinkSync(join(d, 'loop.yaml'), join(d, 'loop.yaml'));
    for (const [flag, what] of <[string, string][]>[
      ['--snapshot', 'snapshot'],
      ['-f', 'manifests'],
    ]) {
      const pre = flag === '-f' ? ['--snapshot', LINKERD] : [];
      expect(oneLine(await cli(['check', ...pre, flag, join(d, 'dangling.yaml')]))).toBe(
        `cannot read ${what} ${join(d, 'dangling.yaml')}: no such file or directory`,
      );
      expect(oneLine(await cli(['check', ...pre, flag, join(d, 'loop.yaml')]))).toBe(
        `cannot read ${what} ${join(d, 'loop.yaml')}: too many levels of symbolic links`,
      );
    }
  });

  it('inside a walked directory: a dangling link is one line; a link back to a parent is walked once', async () => {
    const d = dir();
    writeFileSync(join(d, 'pods.json'), list([pod('a')]));
    symlinkSync(join(d, 'nowhere'), join(d, 'dangling.yaml'));
    expect(oneLine(await cli(['check', '--snapshot', d]))).toBe(
      `cannot read snapshot ${join(d, 'dangling.yaml')}: no such file or directory`,
    );
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', d]))).toBe(
      `cannot read manifests ${join(d, 'dangling.yaml')}: no such file or directory`,
    );

    const loops = dir();
    writeFileSync(join(loops, 'deploy.yaml'), deployYaml);
    mkdirSync(join(loops, 'sub'));
    // Two links to each parent: without the walked set, 2^depth paths until PATH_MAX.
    for (const at of ['up1', 'up2']) symlinkSync('..', join(loops, 'sub', at));
    symlinkSync('.', join(loops, 'sub', 'self'));
    symlinkSync('.', join(loops, 'top'));
    const r = await cli(['check', '--snapshot', LINKERD, '-f', loops, '-R', '-o', 'json']);
    survives(r);
    expect(JSON.parse(r.stdout).source.manifests).toEqual([join(loops, 'deploy.yaml')]); // read once
    const s = await cli(['check', '--snapshot', loops, '--snapshot', LINKERD, '-o', 'json']);
    survives(s);
  });

  it.skipIf(process.getuid?.() === 0)('an unreadable directory is one line', async () => {
    const d = dir();
    mkdirSync(join(d, 'locked'));
    writeFileSync(join(d, 'pods.json'), list([pod('a')]));
    chmodSync(join(d, 'locked'), 0);
    try {
      expect(oneLine(await cli(['check', '--snapshot', d]))).toBe(
        `cannot read snapshot ${join(d, 'locked')}: permission denied`,
      );
    } finally {
      chmodSync(join(d, 'locked'), 0o700);
    }
  });
});

describe('4. deep nesting', () => {
  const N = 100_000;
  const deepJson = {
    arrays: '['.repeat(N) + ']'.repeat(N),
    objects: '{"a":'.repeat(N) + '1' + '}'.repeat(N),
    lists: '{"kind":"List","items":['.repeat(N) + ']}'.repeat(N),
    pod: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"shop"},"spec":${'{"a":'.repeat(N)}1${'}'.repeat(N)}}`,
  };
  const deepYaml = {
    flow: '['.repeat(N) + ']'.repeat(N),
    sequence: '- '.repeat(N) + 'x\n',
    flowMap: '{a: '.repeat(N) + '1' + '}'.repeat(N),
    block: Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n',
  };

  it('JSON and YAML 100k deep through --snapshot and -f: one line', async () => {
    for (const [name, text] of [
      ...Object.entries(deepJson).map(([k, v]) => [`${k}.json`, v]),
      ...Object.entries(deepYaml).map(([k, v]) => [`${k}.yaml`, v]),
    ]) {
      const p = file(name!, text!);
      expect(oneLine(await cli(['check', '--snapshot', p]))).toMatch(
        /: invalid (JSON|YAML) \(nested more than 200 levels deep\)$/,
      );
      expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', p]))).toMatch(
        /: invalid (JSON|YAML) \(nested more than 200 levels deep\)$/,
      );
    }
    expect(
      oneLine(
        await cli(['check', '--snapshot', LINKERD, '-f', '-'], async function* () {
          yield Buffer.from(deepJson.lists);
        }),
      ),
    ).toBe('cannot read manifests stdin: invalid JSON (nested more than 200 levels deep)');
  });

  it("in a line of meshdoctor's own snapshot, and through YAML aliases", async () => {
    const p = file('own.json', own([`{"kind":"Pod","metadata":{"name":"a"},"spec":${'['.repeat(N)}${']'.repeat(N)}}`]));
    expect(oneLine(await cli(['check', '--snapshot', p]))).toBe(
      `cannot read snapshot ${p}: line 3: invalid JSON (nested more than 200 levels deep)`,
    );
    // Each anchor 150 deep, within the bound; the alias nests one in the other: 300.
    const aliased = `kind: List\napiVersion: v1\nitems:\n- &a ${'['.repeat(150)}${']'.repeat(150)}\n- ${'['.repeat(150)}*a${']'.repeat(150)}\n`;
    const y = file('alias.yaml', aliased);
    expect(oneLine(await cli(['check', '--snapshot', y]))).toBe(
      `cannot read snapshot ${y}: invalid YAML (nested more than 200 levels deep once its aliases are resolved)`,
    );
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', y]))).toBe(
      `cannot read manifests ${y}: invalid YAML (nested more than 200 levels deep once its aliases are resolved)`,
    );
  });

  it('property: random nesting as a snapshot or a manifest never crashes', async () => {
    const nested = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constant(1),
        fc.constant('x'),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'kind', 'items', 'metadata', 'name'), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    // A random tree, wrapped in a random number of single levels: around MAX_DEPTH, or far beyond.
    const doc = fc.tuple(
      nested,
      fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 2_000, max: 20_000 })),
      fc.constantFrom('[', '{"kind":"List","apiVersion":"v1","items":[', '{"a":'),
      fc.boolean(),
    );
    await fc.assert(
      fc.asyncProperty(doc, async ([inner, wraps, open, asYaml]) => {
        const close = open === '[' ? ']' : open.endsWith('[') ? ']}' : '}';
        const text = open.repeat(wraps) + JSON.stringify(inner) + close.repeat(wraps);
        const p = file(asYaml ? 'doc.yaml' : 'doc.json', asYaml ? `# YAML\n${text}` : text);
        survives(await cli(['check', '--snapshot', p, '-o', 'json']));
        survives(await cli(['check', '--snapshot', LINKERD, '-f', p, '-o', 'json']));
      }),
      { numRuns: 15 },
    );
  });
});

describe('5. billion laughs', () => {
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    laughs.push(
      `${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(9)
        .fill(`*${'abcdefghi'[i - 1]}`)
        .join(',')}]`,
    );
  const bomb = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol, namespace: shop}\ndata:\n${laughs.map((l) => `  ${l}`).join('\n')}\n`;

  it('aliases expanding exponentially are refused through -f and --snapshot, in one line', async () => {
    const p = file('lol.yaml', bomb);
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', p]))).toBe(
      `cannot read manifests ${p}: invalid YAML (Excessive alias count indicates a resource exhaustion attack)`,
    );
    expect(
      oneLine(
        await cli(['check', '--snapshot', LINKERD, '-f', '-'], async function* () {
          yield Buffer.from(bomb);
        }),
      ),
    ).toBe('cannot read manifests stdin: invalid YAML (Excessive alias count indicates a resource exhaustion attack)');
    expect(oneLine(await cli(['check', '--snapshot', p]))).toBe(
      `cannot read snapshot ${p}: invalid YAML (Excessive alias count indicates a resource exhaustion attack)`,
    );
  });
});

describe('6. many objects in one -f file', () => {
  const objects = (n: number) =>
    list(
      Array.from({ length: n }, (_, i) => ({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: `w${i}` },
      })),
    );

  it('200k objects load (no spread of a huge array into arguments)', async () => {
    const p = file('many.json', objects(200_000));
    const r = await cli(['check', '--snapshot', LINKERD, '-f', p, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('more than --max-objects in the manifests (all files together) is one line naming the flag', async () => {
    const a = file('a.json', objects(600));
    const b = file('b.json', objects(600));
    survives(await cli(['check', '--snapshot', LINKERD, '-f', a, '--max-objects', '1000']));
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', a, '-f', b, '--max-objects', '1000']))).toBe(
      `cannot read manifests ${b}: more than 1000 objects in the manifests (--max-objects)`,
    );
  });
});

describe('7. the -f overlay is linear', () => {
  /**
   * A snapshot of n pods in n namespaces, and n manifest pods: half replace a pod, half are new.
   * Each object of the snapshot counts the reads of its metadata (how the overlay finds it by
   * namespace and name): work, not time, so that the machine's load cannot decide.
   */
  const reads = (n: number): number => {
    let count = 0;
    const counted = (o: Record<string, any>): K8sObject => {
      const { metadata, ...rest } = o;
      return Object.defineProperty(rest, 'metadata', { enumerable: true, get: () => (count++, metadata) }) as K8sObject;
    };
    const snap: Snapshot = {
      source: { type: 'file' },
      scope: { allNamespaces: true },
      objects: {
        namespaces: Array.from({ length: n }, (_, i) =>
          counted({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns${i}` } }),
        ),
        pods: Array.from({ length: n }, (_, i) => counted(pod(`p${i}`, `ns${i}`))),
      },
      unavailable: {},
    };
    const objects: ManifestObject[] = Array.from({ length: n }, (_, i) => ({
      obj: pod(i % 2 ? `p${i}` : `new${i}`, `ns${i}`) as K8sObject,
      source: { file: 'm.json', document: 1 },
    }));
    const out = overlayManifests(snap, { files: ['m.json'], objects }, 'default');
    expect(out.objects.pods).toHaveLength(n + n / 2);
    return count;
  };

  it('100k objects over 100k: the work grows with the count, not its square (20k vs 100k)', () => {
    const small = reads(20_000);
    const large = reads(100_000);
    // Linear: 5x; objects x manifests: 25x.
    expect(small).toBeGreaterThan(20_000);
    expect(large / small).toBeLessThan(6);
  });
});

describe('8. byte-order marks', () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  it('JSON with a UTF-8 BOM is read as --snapshot, -f file and -f - (and UTF-16 by its mark)', async () => {
    const snapshot = file('pods.json', Buffer.concat([BOM, Buffer.from(list([pod('a')]))]));
    survives(await cli(['check', '--snapshot', snapshot]));
    expect((await cli(['check', '--snapshot', snapshot, '-o', 'json'])).stderr).toBe('');
    const deploy = JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', namespace: 'shop' },
      spec: {
        selector: { matchLabels: { app: 'api' } },
        template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
      },
    });
    const m = file('deploy.json', Buffer.concat([BOM, Buffer.from(deploy)]));
    const r = await cli(['check', '--snapshot', LINKERD, '-f', m, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).source.manifests).toEqual([m]);
    const s = await cli(['check', '--snapshot', LINKERD, '-f', '-', '-o', 'json'], async function* () {
      yield Buffer.concat([BOM, Buffer.from(deploy)]);
    });
    expect(s.stderr).toBe('');
    const utf16 = file('deploy16.json', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(deploy, 'utf16le')]));
    expect((await cli(['check', '--snapshot', LINKERD, '-f', utf16, '-o', 'json'])).stderr).toBe('');
  });

  it("meshdoctor's own snapshot with a BOM is still streamed", async () => {
    const p = file('own.json', Buffer.concat([BOM, Buffer.from(own([JSON.stringify(pod('a'))]))]));
    const r = await cli(['check', '--snapshot', p, '-o', 'json']);
    expect(r.stderr).toBe('');
    // Streamed: the line cap applies (read whole, the file would be refused by --max-bytes instead).
    const long = file(
      'own.json',
      Buffer.concat([BOM, Buffer.from(own([JSON.stringify(pod('a', 'shop', { labels: { x: 'y'.repeat(MiB) } }))]))]),
    );
    expect(oneLine(await cli(['check', '--snapshot', long, '--max-bytes', '1']))).toBe(
      `cannot read snapshot ${long}: line 3: longer than 1 MiB (--max-bytes)`,
    );
  });
});

describe('9. malformed snapshots and objects', () => {
  it('a malformed meshdoctor snapshot header, and objects of the wrong type', async () => {
    const kind = file('own.json', own([], '{"kind":"MeshdoctorSnapshot","kind":5,"objects":{'));
    expect(oneLine(await cli(['check', '--snapshot', kind]))).toBe(
      `cannot read snapshot ${kind}: line 1: not the first line of a MeshdoctorSnapshot`,
    );
    const cut = file('own.json', own([], '{"kind":"MeshdoctorSnapshot","x":{"objects":{'));
    expect(oneLine(await cli(['check', '--snapshot', cut]))).toMatch(/: line 1: invalid JSON \(/);
    const noObjects = file('own.json', JSON.stringify({ kind: 'MeshdoctorSnapshot', objects: [1, 2] }));
    expect(oneLine(await cli(['check', '--snapshot', noObjects]))).toBe(
      `cannot read snapshot ${noObjects}: a MeshdoctorSnapshot without "objects"`,
    );
    // Lines that are not objects are skipped, as in a snapshot read whole.
    survives(
      await cli(['check', '--snapshot', file('own.json', own(['null', '5', '"x"', '[]', JSON.stringify(pod('a'))]))]),
    );
    // Kinds meshdoctor does not read (and keys that look like Object's) are skipped.
    const odd = file('own.json', `${own([]).split('\n')[0]}\n"constructor":[\n{}\n],\n"widgets":[\n{"a":1}\n]\n}}\n`);
    survives(await cli(['check', '--snapshot', odd]));
  });

  it('non-string kinds and odd items are not objects', async () => {
    const p = file('odd.json', JSON.stringify({ kind: 'List', items: [{ kind: 5 }, { kind: { a: 1 } }, null, 'x'] }));
    expect(oneLine(await cli(['check', '--snapshot', p]))).toMatch(/no Kubernetes objects found/);
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', p]))).toMatch(
      /^no Kubernetes objects found in the manifests/,
    );
    survives(
      await cli([
        'check',
        '--snapshot',
        file('proto.json', list([{ apiVersion: 'v1', kind: '__proto__', metadata: { name: 'p', namespace: 'shop' } }])),
      ]),
    );
    // A List that holds itself (YAML alias) ends.
    const self = file('self.yaml', '&l {kind: List, apiVersion: v1, items: [*l]}\n');
    expect(oneLine(await cli(['check', '--snapshot', LINKERD, '-f', self]))).toMatch(
      /^no Kubernetes objects found in the manifests/,
    );
  });

  it('a kind the own snapshot records unavailable, also given as loose objects', async () => {
    const head =
      '{"kind":"MeshdoctorSnapshot","apiVersion":"meshdoctor.io/v1","source":{"type":"live"},"scope":{"allNamespaces":true},"unavailable":{"pods":"forbidden"},"objects":{';
    const d = dir();
    writeFileSync(
      join(d, 'a-own.json'),
      `${head}\n"namespaces":[\n${JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })}\n]\n}}\n`,
    );
    writeFileSync(join(d, 'b-pods.json'), list([pod('a')]));
    survives(await cli(['check', '--snapshot', d]));
  });

  it('ownerReferences that is not a list, under a -f overlay', async () => {
    const p = file(
      'pods.json',
      list([
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
        pod('a', 'shop', { ownerReferences: 'x' }),
      ]),
    );
    survives(
      await cli(['check', '--snapshot', p, '-f', '-', '-o', 'json'], async function* () {
        yield Buffer.from(deployYaml);
      }),
    );
  });

  it('property: random bytes as a snapshot, a -f file or stdin end in 0/1/2 and at most one error line', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      // Mostly structural characters, to reach the parsers beyond their first byte.
      fc
        .array(
          fc.constantFrom(
            '{',
            '}',
            '[',
            ']',
            '"',
            ',',
            ':',
            '-',
            ' ',
            '\n',
            '&a',
            '*a',
            'kind',
            'List',
            'items',
            '\uFEFF',
            '\\',
            'MeshdoctorSnapshot',
            '"objects":{',
          ),
          { maxLength: 80 },
        )
        .map((a) => Buffer.from(a.join(''))),
    );
    await fc.assert(
      fc.asyncProperty(bytes, fc.constantFrom('x.json', 'x.yaml'), async (b, name) => {
        const p = file(name, b);
        survives(await cli(['check', '--snapshot', p, '-o', 'json']));
        survives(await cli(['check', '--snapshot', LINKERD, '-f', p, '-o', 'json']));
        survives(
          await cli(['check', '--snapshot', LINKERD, '-f', '-', '-o', 'json'], async function* () {
            yield b;
          }),
        );
      }),
      { numRuns: 40 },
    );
  });
});

describe('memory inside the byte cap', () => {
  it('JSON denser than any Kubernetes object ([],[],...) is refused before JSON.parse allocates it', async () => {
    const { runCli } = await import('./helpers/cli.js');
    const p = file('dense.json', `[${'[],'.repeat(12_000_000)}[]]`);
    const before = process.memoryUsage().rss;
    const r = await runCli(['check', '-A', '--snapshot', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^meshdoctor: cannot read snapshot .*: 24000002 JSON values in [\d.]+ MiB: denser than Kubernetes objects, refused to bound memory\n$/,
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * MiB);
  });

  it('YAML over 32 MiB is refused with the way out (JSON or meshdoctor snapshot)', async () => {
    const { runCli } = await import('./helpers/cli.js');
    const p = file('big.yaml', '- a\n'.repeat(9 * MiB));
    const r = await runCli(['check', '-A', '-f', p, '--snapshot', LINKERD]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/36 MiB of YAML is more than meshdoctor parses \(32 MiB\); save it as JSON/);
  });
});
