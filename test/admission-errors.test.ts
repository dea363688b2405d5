/**
 * The one parser of the API server's admission errors (src/k8s/admission.ts), over messages from
 * real reports: the structure `failed calling webhook "NAME": failed to call webhook: Post "URL":
 * <transport error>` (kubernetes/kubernetes 008b3652 staging/src/k8s.io/apiserver/pkg/util/webhook/error.go,
 * .../admission/plugin/webhook/mutating/dispatcher.go), the older wordings, denials
 * (.../webhook/errors/statuserror.go) and JSON patches that do not apply (named by what they touch).
 */
import { describe, expect, it } from 'vitest';
import {
  invalidItems,
  labelValueProblem,
  parseAdmissionError,
  redactAdmissionMessage,
  transportCause,
} from '../src/k8s/admission.js';

/** [message, webhook, cause, source] */
const CALLS: [string, string, string, string][] = [
  // Timeouts: i/o timeout, context deadline exceeded, Client.Timeout (the URL's ?timeout= never counts).
  [
    'Internal error occurred: failed calling webhook "sidecar-injector.istio.io": Post https://istiod.istio-system.svc:443/inject?timeout=30s: dial tcp 10.228.0.5:15017: i/o timeout',
    'sidecar-injector.istio.io',
    'timeout',
    'istio/istio#20890',
  ],
  [
    'Error creating: Internal error occurred: failed calling webhook "namespace.sidecar-injector.istio.io": failed to call webhook: Post "https://istiod.istio-system.svc:443/inject?timeout=10s": context deadline exceeded',
    'namespace.sidecar-injector.istio.io',
    'timeout',
    'istio/istio#47932, #43593, #43882',
  ],
  [
    'Error creating: Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": failed to call webhook: Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=10s": context deadline exceeded',
    'linkerd-proxy-injector.linkerd.io',
    'timeout',
    'linkerd/linkerd2#9672',
  ],
  [
    'Error creating: Internal error occurred: failed calling admission webhook "linkerd-proxy-injector.linkerd.io": Post https://linkerd-proxy-injector.linkerd.svc:443/?timeout=30s: net/http: request canceled (Client.Timeout exceeded while awaiting headers)',
    'linkerd-proxy-injector.linkerd.io',
    'timeout',
    'linkerd/linkerd2#3358 (older API server wording)',
  ],
  // Connection refused: the ?timeout=30s in the URL made the old first-keyword rule say "timeout".
  [
    'Error creating: Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=30s": dial tcp 10.3.192.109:443: connect: connection refused',
    'linkerd-proxy-injector.linkerd.io',
    'connection-refused',
    'linkerd/linkerd2#6530, kinvolk/lokomotive#690',
  ],
  [
    'Error creating deployer pod: Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: dial tcp 172.30.44.20:443: connect: connection refused',
    'sidecar-injector.istio.io',
    'connection-refused',
    'debianmaster/openshift-examples#77',
  ],
  [
    'Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject: dial tcp 10.254.156.130:443: getsockopt: connection refused',
    'sidecar-injector.istio.io',
    'connection-refused',
    'istio/istio#8182',
  ],
  // Certificates.
  [
    'Error creating: Internal error occurred: failed calling webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: x509: certificate signed by unknown authority',
    'sidecar-injector.istio.io',
    'certificate',
    'istio/istio#16363',
  ],
  [
    'Error creating: Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject: x509: certificate signed by unknown authority (possibly because of "crypto/rsa: verification error" while trying to verify candidate authority certificate "k8s.cluster.local")',
    'sidecar-injector.istio.io',
    'certificate',
    'istio/istio#6186',
  ],
  [
    'Internal error occurred: failed calling webhook "mutate-proxydefaults.consul.hashicorp.com": Post https://consul-controller-webhook.consul.svc:443/mutate-v1alpha1-proxydefaults?timeout=10s: x509: certificate signed by unknown authority',
    'mutate-proxydefaults.consul.hashicorp.com',
    'certificate',
    'hashicorp/consul#11695',
  ],
  [
    'failed calling webhook "x.example.io": failed to call webhook: Post "https://x.svc:443/m?timeout=10s": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-11-22T11:00:00Z is after 2026-11-01T00:00:00Z',
    'x.example.io',
    'certificate',
    'crypto/x509 wording (the innermost segment says nothing: the one before it does)',
  ],
  // No endpoints, no Service.
  [
    'Error creating: Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": failed to call webhook: Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=10s": no endpoints available for service "linkerd-proxy-injector"',
    'linkerd-proxy-injector.linkerd.io',
    'no-endpoints',
    'linkerd/linkerd2#10817',
  ],
  [
    'Internal error occurred: failed calling webhook "namespace.sidecar-injector.istio.io": failed to call webhook: Post "https://istiod.istio-system.svc:443/inject?timeout=10s": service "istiod" not found',
    'namespace.sidecar-injector.istio.io',
    'service-not-found',
    'istio/istio webhook-stale reports',
  ],
  [
    'Internal error occurred: failed calling webhook "kuma-admission-mutating-webhook.kuma.io": failed to call webhook: Post "https://kuma-control-plane.kuma-system.svc:443/default-kuma-io-v1alpha1-mesh?timeout=30s": service "kuma-control-plane" not found',
    'kuma-admission-mutating-webhook.kuma.io',
    'service-not-found',
    'kumahq/kuma uninstall leftovers',
  ],
];

describe('parseAdmissionError: failed calls, by the transport error at the end', () => {
  for (const [msg, webhook, cause, source] of CALLS)
    it(`${cause}: ${source}`, () => {
      const e = parseAdmissionError(msg);
      expect(e).toMatchObject({ kind: 'call', webhook, cause });
      if (e?.kind === 'call') {
        expect(e.url).toMatch(/^https:\/\//);
        expect(e.url).not.toContain(' ');
        expect(e.transport).not.toContain('timeout=');
      }
    });

  it('at least three real instances per class', () => {
    const per = new Map<string, number>();
    for (const [, , cause] of CALLS) per.set(cause, (per.get(cause) ?? 0) + 1);
    for (const c of ['timeout', 'connection-refused', 'certificate']) expect(per.get(c), c).toBeGreaterThanOrEqual(3);
  });

  it('a timeout in the URL is no timeout; a timeout that is one stays one', () => {
    expect(transportCause('dial tcp 10.0.0.1:443: connect: connection refused')).toBe('connection-refused');
    expect(transportCause('net/http: TLS handshake timeout')).toBe('timeout');
    expect(transportCause('EOF')).toBe('other');
    // An HTTP proxy in the way: the CONNECT's status reason alone, or the proxy unreachable (gen8net).
    expect(transportCause('Service Unavailable')).toBe('proxy');
    expect(transportCause('Forbidden')).toBe('proxy');
    expect(transportCause('Unable to connect')).toBe('proxy');
    expect(transportCause('proxyconnect tcp: dial tcp 10.0.0.5:3128: connect: connection refused')).toBe('proxy');
    expect(transportCause('the server could not find the requested resource')).toBe('other');
    expect(
      parseAdmissionError(
        'failed calling webhook "a.b": failed to call webhook: Post "https://a.b.svc:443/x?timeout=30s": dial tcp 10.1.2.3:443: connect: no route to host',
      ),
    ).toMatchObject({ cause: 'other', transport: 'dial tcp 10.1.2.3:443: connect: no route to host' });
    expect(
      parseAdmissionError(
        'failed calling webhook "a.b": failed to call webhook: the server rejected our request due to an error in our request',
      ),
    ).toMatchObject({ cause: 'bad-request' });
    expect(
      parseAdmissionError('failed calling webhook "a.b": received invalid webhook response: expected response.uid="1"'),
    ).toMatchObject({ cause: 'invalid-response' });
    expect(parseAdmissionError('failed calling webhook "a.b"; no further details available')).toMatchObject({
      kind: 'call',
      cause: 'other',
    });
  });
});

describe('parseAdmissionError: denials and JSON patches', () => {
  it('a denial keeps its reason as written (lines and all)', () => {
    expect(
      parseAdmissionError(
        'Error creating: admission webhook "validate.kyverno.svc-fail" denied the request:\n\nresource Pod/shop/web was blocked due to the following policies\n\nrequire-ro-rootfs:\n  validate-readOnlyRootFilesystem: x',
      ),
    ).toMatchObject({ kind: 'denied', webhook: 'validate.kyverno.svc-fail' });
    expect(parseAdmissionError('admission webhook "a.b" denied the request without explanation')).toEqual({
      kind: 'denied',
      webhook: 'a.b',
      reason: '',
    });
  });

  it('a patch that does not apply, with the path decoded (consul-k8s#20, polaris-controller#82, aws-secret-sidecar-injector#52)', () => {
    expect(
      parseAdmissionError(
        'Internal error occurred: Internal error occurred: jsonpatch add operation does not apply: doc is missing path: /metadata/annotations/consul.hashicorp.com~1connect-inject-status',
      ),
    ).toMatchObject({
      kind: 'patch',
      op: 'add',
      path: ['metadata', 'annotations', 'consul.hashicorp.com/connect-inject-status'],
    });
    expect(
      parseAdmissionError(
        'Internal error occurred: add operation does not apply: doc is missing path: "/metadata/annotations/sidecar.istio.io~1status": missing value',
      ),
    ).toMatchObject({ kind: 'patch', path: ['metadata', 'annotations', 'sidecar.istio.io/status'] });
    expect(
      parseAdmissionError(
        'Error creating: Internal error occurred: add operation does not apply: doc is missing path: "/spec/initContainers/0": missing value',
      ),
    ).toMatchObject({ kind: 'patch', path: ['spec', 'initContainers', '0'] });
  });

  it('says nothing of other messages', () => {
    expect(parseAdmissionError('Error creating: pods "x" is forbidden: exceeded quota: q')).toBeUndefined();
    expect(parseAdmissionError('')).toBeUndefined();
  });
});

describe('redactAdmissionMessage', () => {
  it('redacts the values of fields that may hold secrets, keeps the others, bounded and idempotent', () => {
    const m =
      'pods "x" is invalid: [spec.containers[0].env[1].value: Invalid value: "hunter2", spec.initContainers[0].restartPolicy: Unsupported value: "Always": supported values: "Never", spec.containers[1].securityContext.runAsUser: Invalid value: 1337: must be in the ranges: [1000, 2000]]';
    const r = redactAdmissionMessage(m, '(redacted)');
    expect(r).not.toContain('hunter2');
    expect(r).toContain('env[1].value: Invalid value: "(redacted)"');
    expect(r).toContain('restartPolicy: Unsupported value: "Always"');
    expect(r).toContain('runAsUser: Invalid value: 1337');
    expect(redactAdmissionMessage(r, '(redacted)')).toBe(r);
    const long = redactAdmissionMessage('x'.repeat(10000), '(redacted)');
    expect(long.length).toBe(4001);
    expect(redactAdmissionMessage(long, '(redacted)')).toBe(long);
  });

  it('keeps an env variable name (a key, no value): istio/istio#9571 names a label key in it', () => {
    const m =
      'Pod "x" is invalid: [spec.containers[1].env[6].name: Invalid value: "ISTIO_META_app.kubernetes.io/name": a valid environment variable name must consist of alphabetic characters, spec.containers[1].env[6].value: Invalid value: "s3cret"]';
    const r = redactAdmissionMessage(m, '(redacted)');
    expect(r).toContain('env[6].name: Invalid value: "ISTIO_META_app.kubernetes.io/name"');
    expect(r).not.toContain('s3cret');
  });

  it("keeps a label value that is the event object's name or its start (an injector's label from it), no other", () => {
    const m =
      'Pod "web-long-name-of-a-deployment-x" is invalid: metadata.labels: Invalid value: "web-long-name-of-a-deployment": must be no more than 63 characters';
    expect(redactAdmissionMessage(m, '(redacted)', ['web-long-name-of-a-deployment-5d8f7c9b4'])).toBe(m);
    expect(redactAdmissionMessage(m, '(redacted)', ['another-owner-name'])).toContain('Invalid value: "(redacted)"');
    expect(redactAdmissionMessage(m, '(redacted)')).toContain('Invalid value: "(redacted)"');
    // Too short to be told from a word of a secret: redacted.
    const short = 'Pod "a" is invalid: metadata.labels: Invalid value: "web": must be no more than 63 characters';
    expect(redactAdmissionMessage(short, '(redacted)', ['web-5d8f7c9b4'])).toContain('"(redacted)"');
  });
});

describe('invalidItems', () => {
  it('reads each item of an "is invalid" refusal: field path, type, value and reason (kuma#11993, istio#60756)', () => {
    expect(
      invalidItems(
        'Error creating: Pod "lrtest-dashboard-6bbf859f6-p4ltc" is invalid: [spec.initContainers[0].name: Required value, spec.initContainers[0].image: Required value]',
      ),
    ).toEqual([
      { field: 'spec.initContainers[0].name', type: 'Required value', detail: '' },
      { field: 'spec.initContainers[0].image', type: 'Required value', detail: '' },
    ]);
    const [label] = invalidItems(
      `Error creating: Pod "w-1" is invalid: metadata.labels: Invalid value: "settlement-batch.": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
    expect(label).toMatchObject({ field: 'metadata.labels', type: 'Invalid value', value: 'settlement-batch.' });
    expect(label!.detail).toMatch(/^a valid label must be .*regex used/);
    const two = invalidItems(
      'pods "x" is invalid: [spec.volumes[4].name: Duplicate value: "podinfo", spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive]',
    );
    expect(two.map((i) => [i.field, i.type, i.value])).toEqual([
      ['spec.volumes[4].name', 'Duplicate value', 'podinfo'],
      ['spec.containers[0].securityContext.runAsUser', 'Invalid value', '-1'],
    ]);
    expect(invalidItems('pods "x" is forbidden: exceeded quota: q')).toEqual([]);
  });

  it("says why a label value is refused in the API server's words", () => {
    expect(labelValueProblem('a'.repeat(63))).toBeUndefined();
    expect(labelValueProblem('a'.repeat(64))).toBe('must be no more than 63 characters');
    expect(labelValueProblem('settlement-batch.')).toMatch(/must start and end with an alphanumeric/);
    expect(labelValueProblem('')).toBeUndefined();
  });
});
