/**
 * Where component-cert-not-reloaded fires (a Linkerd component of a release that reads its certificate only at start
 * started before its Secret's current certificate was issued), and its near misses: a release that reloads it, a pod
 * started after the renewal, a build the releases cannot order, a Secret not read. Times are the fixtures' own.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings, NOW } from '../helpers/fixtures.js';
import { certsLoadedBefore } from '../../src/facts/timeline.js';
import { makeModel } from '../../src/run/run.js';

const DIR = 'checks/component-cert-not-reloaded';

checkCases('component-cert-not-reloaded', {
  fires: [
    {
      fixtures: 'fires-linkerd-stable-2.10-sp-validator-2.9.2-cert-manager-renewal.yaml',
      findings: ['Pod linkerd/linkerd-sp-validator-7c8d9e6f5-p3r5t'],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-injector-2.8.1-legacy-secret.yaml',
      findings: ['Pod linkerd/linkerd-proxy-injector-6d8f9c7b5-x2k4p'],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-tap-2.7.1-helm-upgrade.yaml',
      findings: ['Pod linkerd/linkerd-tap-5f6c7d8b9-m4n7k'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-stable-2.10-sp-validator-2.9.3-reloads.yaml' },
    { fixtures: 'ok-linkerd-stable-2.10-sp-validator-2.9.2-restarted-after-renewal.yaml' },
    { fixtures: 'ok-linkerd-stable-2.10-injector-edge-unordered.yaml' },
    { fixtures: 'ok-linkerd-stable-2.10-injector-2.8.1-secret-not-read.yaml' },
    { fixtures: 'ok-consul-injector-reloads-its-files.yaml' },
  ],
});

describe('component-cert-not-reloaded: the timeline, the release and the fix', () => {
  it('dates the start against the certificate, names the release data and restarts the pod', () => {
    const fs = findings(
      cluster('linkerd-stable-2.10', [`${DIR}/fires-linkerd-stable-2.10-sp-validator-2.9.2-cert-manager-renewal.yaml`]),
      ['component-cert-not-reloaded'],
    );
    expect(fs).toHaveLength(1);
    const f = fs[0]!;
    expect(f.message).toContain('started 2026-11-15T10:00:10.000Z, before Secret linkerd/linkerd-sp-validator-k8s-tls');
    expect(f.message).toContain('issued 2026-11-22T02:00:00.000Z');
    expect(f.message).toContain('Linkerd stable-2.9.2 reads its certificate only at start');
    expect(f.message).toContain('stable-2.9.3');
    expect(JSON.stringify(f.fix)).toContain('linkerd-sp-validator-7c8d9e6f5-p3r5t');
    expect(JSON.stringify(f.evidence)).toContain('NewFsCredsWatcher');
  });
  it('dates the Consul injector too, and reads its release as one that reloads the file', () => {
    const snap = cluster('consul', [`${DIR}/ok-consul-injector-reloads-its-files.yaml`]);
    const m = makeModel(snap, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
    const s = certsLoadedBefore(m, 'consul');
    expect(s.map((x) => [x.container, x.secret, x.reads])).toEqual([
      ['sidecar-injector', 'consul-connect-inject-webhook-cert', 'reloads'],
    ]);
  });
});
