/**
 * component-cert-not-reloaded — a mesh component (injector, validating webhook, APIService) started before
 * the Secret it mounts got its current certificate, in a release that reads the certificate only at start:
 * it still serves the one it started with.
 *
 * Why: cert-manager renews a webhook's Secret, or an upgrade re-renders it (`linkerd upgrade`, a Helm chart
 * that generates a new self-signed pair on every render), and the kubelet updates the mounted file; a server
 * that loaded the pair once at start keeps serving the older certificate. The API server verifies it against a
 * caBundle that follows the Secret, so once the older certificate expires or was signed by another CA every
 * call fails: under failurePolicy Ignore new pods silently start without a proxy, under Fail they are refused
 * (linkerd/linkerd2#5272, #5341, #3673/#3497, #5888). Which release reloads which file is data:
 * the profile's `controlPlane.certLoads` (Linkerd: src/mesh/linkerd/cert-loads.ts, reloads from stable-2.9.3).
 * When: a container of the mesh's control plane (isOwnPod) that is running, mounts a Secret volume (not by subPath)
 * whose first certificate under tls.crt, crt.pem, cert-chain.pem or cert.pem has a notBefore later than the
 * container's startedAt (facts/timeline.ts certsLoadedBefore), and whose image tag the mesh orders before the
 * release that reloads it. Silent where the release reloads it or cannot be placed, and where the Secret was not read.
 * Times are the objects' own, never the wall clock.
 * Known false positives: a certificate issued with a notBefore in the future of its Secret write (rare; issuers
 * backdate, which only hides cases).
 * Fix: restart the component so that it reads the current certificate; upgrade to a release that reloads it.
 */
import { cmd, comment, type Step } from '../fix/steps.js';
import { certsLoadedBefore, CERTS_LOADED_BEFORE, type CertLoadedBefore } from '../facts/timeline.js';
import { MESHES } from '../facts/model.js';
import { PROFILE_LIST } from '../mesh/registry.js';
import { agree, plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  stale:
    '{count} of {meshTitle} {serves} an older certificate than {its} Secret now holds: {each}. {release} reads its certificate only at start (it reloads the file from {reloadsFrom}), so each still serves the one it started with: once that one expires or the caBundle no longer vouches for it, the API server rejects the calls (new pods start without a proxy under failurePolicy Ignore, or are refused under Fail). Restart them to load the current certificates.',
});

const line = (s: CertLoadedBefore) =>
  `Pod ${s.namespace}/${s.podName} (container ${s.container}${s.version ? ` ${s.version}` : ''}, ${s.load!.serves}) started ${s.startedAt.toISOString()}, before Secret ${s.namespace}/${s.secret} got its current certificate (issued ${s.leaf.notBefore.toISOString()})`;

export default defineCheck({
  ...meta('component-cert-not-reloaded'),
  facts: [CERTS_LOADED_BEFORE, MESHES],
  messages: MESSAGES,
  *run(m) {
    for (const p of PROFILE_LIST) {
      if (!p.controlPlane.certLoads?.length) continue;
      const stale = certsLoadedBefore(m, p.name).filter(
        (s) => s.reads === 'at-start' && s.load && m.seesNamespace(s.namespace),
      );
      if (!stale.length) continue;
      const first = stale[0]!;
      const versions = [...new Set(stale.map((s) => s.version))];
      const fix: Step[] = [
        comment`each component reads its certificate only at start: a new pod loads the current one`,
        ...stale.map((s) => cmd`kubectl -n ${s.namespace} delete pod ${s.podName}`),
        comment`for good: a release from ${first.load!.reloadsFrom} on reloads the certificate when its Secret changes`,
      ];
      yield {
        mesh: p.name,
        ...say(MESSAGES, 'stale', {
          count: plural(stale.length, 'component'),
          meshTitle: p.title,
          serves: agree(stale.length, 'serves', 'serve'),
          its: agree(stale.length, 'its', 'their'),
          each: stale.map(line).join('; '),
          release: `${p.title} ${versions.join(', ')}`,
          reloadsFrom: first.load!.reloadsFrom,
        }),
        resource: { kind: 'Pod', namespace: first.namespace, name: first.podName },
        evidence: {
          components: stale.map((s) => ({
            pod: `${s.namespace}/${s.podName}`,
            container: s.container,
            version: s.version ?? null,
            startedAt: s.startedAt.toISOString(),
            secret: `${s.namespace}/${s.secret}`,
            key: s.key,
            certificate: {
              subject: s.leaf.subject,
              issuer: s.leaf.issuer,
              notBefore: s.leaf.notBefore.toISOString(),
              notAfter: s.leaf.notAfter.toISOString(),
              fingerprint256: s.leaf.fingerprint256,
            },
            reloadsFrom: s.load!.reloadsFrom,
            source: s.load!.source,
          })),
        },
        fix,
        affectedPods: 0, // mesh-wide: every pod created while it lasts, not a countable set
      };
    }
  },
});
