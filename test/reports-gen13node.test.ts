/**
 * Real user reports (issue 31, gen13node: what the node offers against what the mesh's iptables init container
 * needs), each rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen13node/,
 * the thread in each file's header). An init container that keeps failing with no message saying why, on a node
 * whose OS image runs iptables on nf_tables only, of a release that runs iptables-legacy only: the finding quotes the
 * node's image and the release's backend and names what switches it.
 */
import { describe, expect, it } from 'vitest';
import { type ReportCase, reportCases } from './helpers/reports.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseOf, cluster, findings, FIXTURES } from './helpers/fixtures.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.5-openshift-4.1-nftables-istio-init-nat-table-does-not-exist',
    report: 'istio/istio#13986',
    id: 'proxy-cannot-start',
    says: ['Red Hat Enterprise Linux CoreOS 410.8', 'proxy_init:1.1.7', 'iptables-legacy only', 'iptable_nat'],
  },
  {
    file: 'istio-1.5-openshift-4.1-rc3-knative-istio-init-iptables-1.6',
    report: 'openshift-cloud-functions/knative-operators#42',
    id: 'proxy-cannot-start',
    says: ['Red Hat Enterprise Linux CoreOS', 'iptables-legacy only', 'iptable_nat'],
  },
  {
    file: 'istio-1.6-kubeflow-1.4-almalinux-8.5-istio-init-no-legacy-nat-table',
    report: 'istio/istio#28897',
    id: 'proxy-cannot-start',
    says: ['AlmaLinux 8.5', 'proxyv2:1.9.6', 'iptables-legacy only', 'iptable_nat'],
  },
  {
    // The node's kernel lacks the modules; nothing in the cluster's state says so (no node image of the table).
    file: 'istio-kubeflow-1.10-istio-init-crashloop-kernel-without-iptables-modules',
    report: 'kubeflow/community-distribution#3140',
    id: 'proxy-cannot-start',
    says: ['for a reason meshdoctor does not know'],
    unknowable: true,
  },
];

reportCases('gen13node', 'real reports: the node image against the init container release', CASES);

/** Near misses: the node-image finding stays silent where the evidence does not show the mismatch. */
describe('near misses of the node image against the init container release', () => {
  const FILE = 'istio-1.5-openshift-4.1-nftables-istio-init-nat-table-does-not-exist';
  const text = readFileSync(join(FIXTURES, 'reports', 'gen13node', `${FILE}.yaml`), 'utf8');
  const MISMATCH = /whose iptables uses nf_tables/;
  const messages = (snap: ReturnType<typeof cluster>) =>
    findings(snap)
      .filter((f) => f.id === 'proxy-cannot-start')
      .map((f) => f.message);

  it('the case itself names the mismatch (the near misses below are edits of it)', () => {
    const hit = findings(cluster(baseOf(FILE), [text])).find(
      (f) => f.id === 'proxy-cannot-start' && MISMATCH.test(f.message),
    );
    expect(hit).toBeDefined();
    // Every line of its fix is printed, none withheld as unsafe.
    expect(JSON.stringify((hit as any).fix)).not.toContain('fix withheld');
    expect(JSON.stringify((hit as any).fix)).toContain('global.nativeNftables=true');
  });

  it('the same node image with a release that falls back to iptables-nft (1.27.1 and later)', () => {
    const edited = text.replace('docker.io/istio/proxy_init:1.1.7', 'docker.io/istio/proxyv2:1.27.1');
    expect(edited).not.toBe(text);
    const ms = messages(cluster(baseOf(FILE), [edited]));
    expect(ms.length).toBeGreaterThan(0);
    expect(ms.filter((m) => MISMATCH.test(m))).toEqual([]);
  });

  it('the same release with native nftables (--native-nftables) is not legacy', () => {
    const edited = text
      .replace('docker.io/istio/proxy_init:1.1.7', 'docker.io/istio/proxyv2:1.27.0')
      .replace('args: [-p,', 'args: [--native-nftables, -p,');
    expect(messages(cluster(baseOf(FILE), [edited])).filter((m) => MISMATCH.test(m))).toEqual([]);
  });

  it('a node image that offers the legacy tables (RHEL 7)', () => {
    const edited = text.replace(
      'Red Hat Enterprise Linux CoreOS 410.8 (Ootpa)',
      'Red Hat Enterprise Linux Server 7.9 (Maipo)',
    );
    expect(messages(cluster(baseOf(FILE), [edited])).filter((m) => MISMATCH.test(m))).toEqual([]);
  });

  it('a failing init container whose message names another cause keeps that cause', () => {
    const edited = text.replace(
      'lastState: {terminated: {reason: Error,',
      'lastState: {terminated: {reason: Error, exitCode: 1, message: "iptables v1.6.0: can\'t initialize iptables table `nat\': Permission denied (you must be root)",',
    );
    const ms = messages(cluster(baseOf(FILE), [edited]));
    expect(ms.some((m) => m.includes('Permission denied (you must be root)'))).toBe(true);
    expect(ms.filter((m) => MISMATCH.test(m))).toEqual([]);
  });

  it('a node not read gives no node finding', () => {
    const snap = cluster(baseOf(FILE), [text]);
    snap.objects.nodes = [];
    snap.unavailable.nodes = 'forbidden: nodes is forbidden';
    const ms = messages(snap);
    expect(ms.length).toBeGreaterThan(0);
    expect(ms.filter((m) => MISMATCH.test(m) || m.includes('CoreOS'))).toEqual([]);
  });
});
