/**
 * kubectl's conventions (issue 27): durations, selectors, --all-namespaces=true, `explain TYPE
 * NAME`, -o yaml, --snapshot -, contexts listed, "did you mean" for checks, one error prefix,
 * `checks` at the terminal's width, FORCE_COLOR, counts in words that agree, suppressed findings
 * never read as "No findings", and whose pods an injector finding counts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { resolveKubeContext } from '../src/cluster/kubeconfig.js';
import { fieldsMatch, labelsMatch, parseFieldSelector, parseLabelSelector } from '../src/k8s/selector-text.js';
import { podsText, nothingFound } from '../src/report/text.js';
import { kubectlTimeoutMs } from '../src/util/duration.js';
import { didYouMean } from '../src/util/suggest.js';
import { runCli } from './helpers/cli.js';
import { FIXTURES, baseObjects, fixtureObjects, overlay } from './helpers/fixtures.js';

const GOLDEN = join(FIXTURES, 'golden-cluster.yaml');
const TWO = ['--only', 'namespace-not-enabled,pod-opted-out'];
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-conventions-'));
const json = async (args: string[], opts: Parameters<typeof runCli>[1] = {}) => {
  const r = await runCli([...args, '-o', 'json'], opts);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
};
const ids = (report: any) =>
  report.findings.map((f: any) => `${f.id} ${f.resource.kind}/${f.resource.namespace ?? ''}/${f.resource.name}`);

describe('--request-timeout and --timeout take durations as kubectl does', () => {
  it.each([
    ['5s', 5000],
    ['1m', 60_000],
    ['0', 0],
    ['30', 30_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['300ms', 300],
    ['.5s', 500],
    ['2m3.5s', 123_500],
    ['-1s', -1000],
    ['+2s', 2000],
  ])('%s is %d ms', (text, ms) => expect(kubectlTimeoutMs(text)).toBe(ms));

  it.each(['', '5x', 's', '1e3s', '5 s', '1.s.', '1d', '--1s'])('%j is refused', (text) =>
    expect(kubectlTimeoutMs(text)).toBeUndefined(),
  );

  it('0 is no per-request limit; the run still has --timeout; a bad one is one line, exit 2', async () => {
    const ok = await runCli([
      'check',
      '-A',
      '--snapshot',
      GOLDEN,
      '--request-timeout',
      '0',
      '--timeout',
      '2m',
      ...TWO,
      '-o',
      'json',
    ]);
    expect(ok.code).toBe(0);
    const bad = await runCli(['check', '-A', '--snapshot', GOLDEN, '--request-timeout', '1d']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^meshdoctor: option '--request-timeout <duration>' argument '1d' is invalid\. --request-timeout takes a duration/,
    );
  });
});

describe('--all-namespaces=true', () => {
  it('takes kubectl true/false values; anything else is a usage error', async () => {
    expect((await json(['check', '--all-namespaces=true', '--snapshot', GOLDEN, ...TWO])).scope).toEqual({
      allNamespaces: true,
    });
    expect((await json(['check', '--all-namespaces=false', '-n', 'shop', '--snapshot', GOLDEN, ...TWO])).scope).toEqual(
      {
        allNamespaces: false,
        namespace: 'shop',
      },
    );
    expect((await json(['check', '-A', '--snapshot', GOLDEN, ...TWO])).scope).toEqual({ allNamespaces: true });
    const r = await runCli(['check', '--all-namespaces=maybe', '--snapshot', GOLDEN]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--all-namespaces takes true or false/);
  });
});

describe('-l/--selector and --field-selector narrow the workloads', () => {
  it('parses what labels.Parse parses and matches as it matches', () => {
    const sel = (text: string) => {
      const s = parseLabelSelector(text);
      if ('error' in s) throw new Error(s.error);
      return (labels: Record<string, string>) => labelsMatch(s, labels);
    };
    expect(sel('app=cart')({ app: 'cart' })).toBe(true);
    expect(sel('app==cart,tier')({ app: 'cart' })).toBe(false);
    expect(sel('tier in (web, api)')({ tier: 'api' })).toBe(true);
    expect(sel('tier notin (web)')({})).toBe(true); // absent: notin holds
    expect(sel('app!=cart')({})).toBe(true);
    expect(sel('!canary')({ canary: 'x' })).toBe(false);
    expect(sel('v>1,v<10')({ v: '5' })).toBe(true);
    expect(sel('v>1')({ v: 'x' })).toBe(false);
    expect(sel('')({})).toBe(true);
    for (const bad of ['app=', 'app in web', 'v>a', 'a b', '=x', 'app=-x-', 'a,,b']) {
      if (bad === 'app=') continue; // an empty value is valid (app has the empty value)
      expect(parseLabelSelector(bad), bad).toHaveProperty('error');
    }
    const f = parseFieldSelector('metadata.namespace=shop,metadata.name!=cart');
    if ('error' in f) throw new Error(f.error);
    expect(fieldsMatch(f, { namespace: 'shop', name: 'web' })).toBe(true);
    expect(fieldsMatch(f, { namespace: 'shop', name: 'cart' })).toBe(false);
    expect(parseFieldSelector('spec.nodeName=n1')).toEqual({
      error: '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });

  it("keeps the selected workloads' findings and their namespaces', and says how many it selected", async () => {
    const all = await json(['check', '-A', '--snapshot', GOLDEN, ...TWO]);
    expect(ids(all)).toEqual([
      'namespace-not-enabled Namespace//orders',
      'pod-opted-out Deployment/shop/cart',
      'pod-opted-out Deployment/store/search',
    ]);
    const cart = await json(['check', '-A', '--snapshot', GOLDEN, '-l', 'app=cart', ...TWO]);
    expect(ids(cart)).toEqual(['pod-opted-out Deployment/shop/cart']);
    expect(cart.selection).toEqual({
      selector: 'app=cart',
      workloads: { selected: 1, total: cart.selection.workloads.total },
    });
    expect(cart.selection.workloads.total).toBeGreaterThan(3);
    const store = await json([
      'check',
      '-A',
      '--snapshot',
      GOLDEN,
      '--field-selector',
      'metadata.namespace=store',
      ...TWO,
    ]);
    expect(ids(store)).toEqual(['pod-opted-out Deployment/store/search']);
    const table = await runCli(['check', '-A', '--snapshot', GOLDEN, '-l', 'app=cart', ...TWO], {
      env: { COLUMNS: '200' },
    });
    expect(table.stdout).toContain(`· -l app=cart: 1 of ${cart.selection.workloads.total} workloads ·`);
  });

  it('the control plane that fails a selected workload stays, even before the workload shows it', async () => {
    const base = baseObjects('linkerd');
    const cases = [
      // shop/web is meshed (its pods predate the outage); the injector now crash-loops: its next pods get no proxy.
      {
        objects: overlay(base, fixtureObjects('checks/injector-unavailable/fires-linkerd-crashloop.yaml')),
        check: 'injector-unavailable',
      },
      // The webhook configuration is gone: shop still asks for Linkerd, which can no longer inject it.
      // (Another webhook configuration stays, so that the dump shows the kind was read.)
      {
        objects: [
          ...base.filter((o) => o.kind !== 'MutatingWebhookConfiguration'),
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'MutatingWebhookConfiguration',
            metadata: { name: 'unrelated' },
            webhooks: [],
          },
        ],
        check: 'webhook-missing',
      },
    ];
    for (const { objects, check } of cases) {
      const file = join(tmp, `${check}.json`);
      writeFileSync(file, JSON.stringify({ kind: 'List', items: objects }));
      const checks = async (args: string[]) =>
        (await json(['check', '-A', '--snapshot', file, ...args])).findings.map((f: any) => f.id);
      expect(await checks([])).toContain(check);
      const web = await json([
        'check',
        '-A',
        '--snapshot',
        file,
        '--field-selector',
        'metadata.namespace=shop,metadata.name=web',
      ]);
      expect(web.selection.workloads.selected).toBe(1);
      expect(
        web.findings.map((f: any) => f.id),
        check,
      ).toContain(check);
      // A workload no mesh is asked for keeps none of it.
      expect(await checks(['-l', 'app=billing']), check).not.toContain(check);
    }
  });

  it('a selector that selects nothing says so (stderr and report), never "every workload is injected"', async () => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, '-l', 'app=nothing', ...TWO]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^meshdoctor: -l app=nothing selects none of the \d+ workloads in scope\n$/);
    expect(r.stdout).toContain('No workload in scope matches -l app=nothing: nothing was checked.');
    expect(r.stdout).not.toContain('every workload');
  });

  it('a bad selector is one line, exit 2', async () => {
    for (const [flag, value] of [
      ['-l', 'app in web'],
      ['--field-selector', 'spec.nodeName=x'],
    ]) {
      const r = await runCli(['check', '-A', '--snapshot', GOLDEN, flag!, value!]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^meshdoctor: invalid (-l\/--selector|--field-selector) "[^"]+": .+\n$/);
    }
  });
});

describe('explain TYPE NAME, -o yaml, --snapshot -', () => {
  it('explain deploy cart is explain deploy/cart', async () => {
    const slash = await runCli(['explain', 'deploy/cart', '-n', 'shop', '--snapshot', GOLDEN]);
    const space = await runCli(['explain', 'deploy', 'cart', '-n', 'shop', '--snapshot', GOLDEN]);
    expect(slash.stdout).toContain('Deployment shop/cart');
    expect(space).toEqual(slash);
    const both = await runCli(['explain', 'deploy/cart', 'cart', '-n', 'shop', '--snapshot', GOLDEN]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^meshdoctor: cannot explain "deploy\/cart cart": expected KIND\/NAME or KIND NAME/);
  });

  it('-o yaml is the JSON report as YAML (check, explain, checks)', async () => {
    for (const args of [
      ['check', '-A', '--snapshot', GOLDEN, ...TWO],
      ['explain', 'deploy', 'cart', '-n', 'shop', '--snapshot', GOLDEN],
      ['checks'],
      ['checks', 'pod-opted-out'],
    ]) {
      const y = await runCli([...args, '-o', 'yaml']);
      const j = await runCli([...args, '-o', 'json']);
      expect(y.code).toBe(j.code);
      expect(YAML.parse(y.stdout)).toEqual(JSON.parse(j.stdout));
      expect(y.stdout).not.toMatch(/^\s*\{/);
    }
  });

  it('--snapshot - reads stdin (kubectl get ... -o json | meshdoctor check --snapshot -)', async () => {
    const text = readFileSync(GOLDEN, 'utf8');
    const fromFile = await json(['check', '-A', '--snapshot', GOLDEN, ...TWO]);
    const fromStdin = await json(['check', '-A', '--snapshot', '-', ...TWO], { stdin: text });
    expect(fromStdin.findings).toEqual(fromFile.findings);
    expect(fromStdin.source.files).toEqual(['-']);
    const listJson = JSON.stringify({ kind: 'List', items: YAML.parseAllDocuments(text).map((d) => d.toJS()) });
    expect((await json(['check', '-A', '--snapshot', '-', ...TWO], { stdin: listJson })).findings).toEqual(
      fromFile.findings,
    );
    const empty = await runCli(['check', '-A', '--snapshot', '-'], { stdin: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^meshdoctor: cannot read snapshot stdin: /);
    const twice = await runCli(['check', '-A', '--snapshot', '-', '-f', '-'], { stdin: text });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/stdin can be read once/);
  });
});

describe('names the user types', () => {
  it('"did you mean" for check ids and codes, as for flags', async () => {
    expect(didYouMean('pod-opted-ot', ['pod-opted-out', 'webhook-missing'])).toBe('; did you mean pod-opted-out?');
    expect(didYouMean('zzz', ['pod-opted-out'])).toBe('');
    const r = await runCli(['check', '--only', 'pod-opted-ot', '--snapshot', GOLDEN]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'meshdoctor: unknown check "pod-opted-ot"; did you mean pod-opted-out? (see: meshdoctor checks)\n',
    );
    expect((await runCli(['checks', 'MD100'])).stderr).toMatch(
      /^meshdoctor: unknown check "MD100"; did you mean one of MD1001, MD1002/,
    );
    expect((await runCli(['check', '--suppress', 'pod-optedout=Deployment/a/b', '--snapshot', GOLDEN])).stderr).toMatch(
      /did you mean pod-opted-out\?/,
    );
    // Flags, for comparison: commander's own suggestion, with the same prefix.
    expect((await runCli(['check', '--onyl', 'x'])).stderr).toMatch(
      /^meshdoctor: unknown option '--onyl'\n\(Did you mean --only\?\)/,
    );
  });

  it('a missing context lists the available ones, with "did you mean"', async () => {
    const kc = join(tmp, 'contexts.yaml');
    writeFileSync(
      kc,
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: ['prod-eu', 'prod-us', 'staging'].map((name) => ({ name, context: { cluster: 'c', user: 'u' } })),
      }),
    );
    await expect(resolveKubeContext({ kubeconfig: kc, context: 'stagign' })).rejects.toThrow(
      'context "stagign" not found in kubeconfig; did you mean staging? (contexts: prod-eu, prod-us, staging)',
    );
    await expect(resolveKubeContext({ kubeconfig: kc })).rejects.toThrow(
      'the kubeconfig has no current context; pass --context NAME (contexts: prod-eu, prod-us, staging)',
    );
  });

  it('impersonation: the headers client-go sends, flags over the kubeconfig, groups need a user', async () => {
    const kc = join(tmp, 'as.yaml');
    writeFileSync(
      kc,
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [
          {
            name: 'u',
            user: {
              token: 't',
              as: 'from-config',
              'as-groups': ['cfg'],
              'as-user-extra': { 'scopes/a b': ['x', 'y'] },
            },
          },
        ],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const fromConfig = await resolveKubeContext({ kubeconfig: kc });
    expect(fromConfig.headers).toMatchObject({
      'Impersonate-User': 'from-config',
      'Impersonate-Group': ['cfg'],
      'Impersonate-Extra-scopes%2Fa%20b': ['x', 'y'],
    });
    const flags = await resolveKubeContext({
      kubeconfig: kc,
      impersonate: { user: 'alice', groups: ['devs', 'ops'], uid: '42' },
    });
    expect(flags.headers).toMatchObject({
      'Impersonate-User': 'alice',
      'Impersonate-Uid': '42',
      'Impersonate-Group': ['devs', 'ops'],
    });
    expect(flags.impersonate?.user).toBe('alice');
    // Groups without a user are refused, as clientcmd refuses them (a usage error, before any request).
    const r = await runCli(['check', '-A', '--kubeconfig', kc, '--as-group', 'devs', '--as', '', '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'meshdoctor: --as-group and --as-uid need --as (a user to impersonate), as kubectl requires\n',
    );
    const offline = await runCli(['check', '-A', '--snapshot', GOLDEN, '--as', 'alice']);
    expect(offline.code).toBe(2);
    expect(offline.stderr).toBe(
      'meshdoctor: --as, --as-group and --as-uid act on the API server: they cannot be used with --snapshot\n',
    );
  });
});

describe('output people read', () => {
  it('one error prefix: usage errors and run errors both start with "meshdoctor: "', async () => {
    for (const args of [
      ['check', '--bogus'],
      ['nonsense'],
      ['check', '-o', 'xml'],
      ['check', '--snapshot', join(tmp, 'absent.json')],
      ['checks', 'nope'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^meshdoctor: /);
      expect(r.stderr).not.toMatch(/^error: /m);
    }
  });

  it('checks fits the terminal; piped, one line per check', async () => {
    const narrow = await runCli(['checks'], { tty: true, env: { COLUMNS: '70' } });
    const lines = narrow.stdout.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(70);
    const piped = await runCli(['checks']);
    const rows = piped.stdout.split('\n').filter((l) => /^MD\d{4} /.test(l));
    expect(piped.stdout.split('\n').length).toBe(rows.length + 4); // header, rows, blank, hint, final newline
    expect(Math.max(...piped.stdout.split('\n').map((l) => l.length))).toBeGreaterThan(70); // not vacuous: some title is long
    // A wrapped title continues under its column.
    const at = lines[0]!.indexOf('TITLE');
    expect(lines.filter((l) => l.startsWith(' ')).every((l) => l.slice(0, at).trim() === '' && l[at] !== ' ')).toBe(
      true,
    );
  });

  it('FORCE_COLOR forces colors on a pipe and turns them off on a terminal; --no-color wins', async () => {
    const args = ['check', '-A', '--snapshot', GOLDEN, ...TWO];
    const ESC = '\u001b[';
    expect((await runCli(args)).stdout).not.toContain(ESC);
    expect((await runCli(args, { env: { FORCE_COLOR: '1' } })).stdout).toContain(ESC);
    expect((await runCli(args, { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout).toContain(ESC);
    expect((await runCli(args, { tty: true })).stdout).toContain(ESC);
    expect((await runCli(args, { tty: true, env: { FORCE_COLOR: '0' } })).stdout).not.toContain(ESC);
    expect((await runCli([...args, '--no-color'], { env: { FORCE_COLOR: '1' } })).stdout).not.toContain(ESC);
  });

  it('"No findings" is never printed when findings were suppressed: it says how many', async () => {
    const r = await runCli(
      ['check', '-A', '--snapshot', GOLDEN, ...TWO, '--suppress', '*=Deployment/*/*', '--suppress', '*=Namespace/*'],
      {
        env: { COLUMNS: '200' },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No findings, but 3 findings were suppressed (listed below).');
    expect(r.stdout).not.toContain('every workload');
    const s = { error: 0, warning: 0, info: 0, total: 0, suppressed: 1, checksRun: 2, checksSkipped: 0 };
    expect(nothingFound({ coverage: { complete: true, unavailable: [], rbac: [] }, summary: s })).toBe(
      'No findings, but 1 finding was suppressed (listed below).',
    );
    expect(nothingFound({ coverage: { complete: false, unavailable: [], rbac: [] }, summary: s })).toBe(
      'The 2 checks that ran found only 1 suppressed finding (listed below).',
    );
    expect(
      nothingFound({ coverage: { complete: true, unavailable: [], rbac: [] }, summary: { ...s, suppressed: 0 } }),
    ).toBe('No findings: every workload in scope is injected as configured.');
  });

  it("an injector finding counts app pods as the app's, not as its own", () => {
    const ref = { kind: 'Deployment', namespace: 'linkerd', name: 'linkerd-proxy-injector' };
    expect(podsText({ affectedPods: 4, resource: ref, cause: { kind: 'injector-down', mesh: 'linkerd' } })).toBe(
      '4 app pods without a proxy',
    );
    expect(
      podsText({
        affectedPods: 1,
        resource: { kind: 'MutatingWebhookConfiguration', name: 'x' },
        cause: { kind: 'webhook-broken', mesh: 'istio' },
      }),
    ).toBe('1 app pod without a proxy');
    expect(podsText({ affectedPods: 2, resource: { kind: 'Deployment', namespace: 'shop', name: 'cart' } })).toBe(
      '2 pods',
    );
    expect(podsText({ affectedPods: 1, resource: { kind: 'Namespace', name: 'orders' } })).toBe('1 pod affected');
    expect(podsText({ affectedPods: 0, resource: ref })).toBe('');
  });

  it('counts and verbs agree: "1 workload runs", "1 pod ... was"', async () => {
    const all = await json(['check', '-A', '--snapshot', GOLDEN]);
    const messages: string[] = all.findings.map((f: any) => f.message);
    expect(messages.some((m) => /\b1 workload runs\b/.test(m))).toBe(true);
    for (const m of messages) expect(m).not.toMatch(/\b1 (pod|workload|other workload)s? (were|run|have|are)\b/);
  });
});

describe('-o name and kubectl template formats (issue 35 item 7)', () => {
  it("-o name prints the findings' objects as kubectl does (kind.group/name), once each, in rank order", async () => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN]);
    const n = await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'name']);
    expect(n.code).toBe(r.code);
    expect(n.stdout).toBe('namespace/orders\ndeployment.apps/cart\ndeployment.apps/search\n');
    const none = await runCli(['check', '-n', 'default', '--snapshot', GOLDEN, '-o', 'name']);
    expect(none.stdout).toBe('');
  });

  it('-o jsonpath={.tool.name} prints the field (test/jsonpath.test.ts has the rest)', async () => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'jsonpath={.tool.name}']);
    expect(r.stdout).toBe('meshdoctor');
    expect(r.stderr).toBe('');
  });

  it('-o jsonpath-as-json, go-template, custom-columns: refused by name, saying what to use instead (exit 2)', async () => {
    for (const o of ['jsonpath-as-json={.findings}', 'go-template={{.}}', 'custom-columns=A:.a']) {
      const r = await runCli(['check', '--snapshot', GOLDEN, '-o', o]);
      expect(r.code, o).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /-o (jsonpath|jsonpath-as-json|go-template|custom-columns) is not supported: use -o json with jq .*-o name/,
      );
    }
  });
});
