import { describe, expect, it } from 'vitest';
import { evalCel, evalMatchConditions } from '../src/k8s/cel.js';
import { admissionChain } from '../src/k8s/webhook.js';

const pod = {
  namespace: 'shop',
  labels: { app: 'web', 'sidecar.example/inject': 'true' },
  annotations: { 'example.io/skip': 'yes' },
};
const bare = { ...pod, name: 'web-0' };

describe('evalCel (src/k8s/cel.ts): the simple matchCondition shapes, nothing else', () => {
  it.each([
    ["object.metadata.name == 'web-0'", bare, true],
    ["object.metadata.name != 'web-0'", bare, false],
    ["object.metadata.name == 'web-0'", pod, 'unknown'], // generateName: not known at admission
    ['has(object.metadata.labels)', pod, true],
    ['has(object.metadata.labels)', { namespace: 'shop' }, false],
    ["'app' in object.metadata.labels", pod, true],
    ["'nope' in object.metadata.labels", pod, false],
    ["'app' in object.metadata.labels", { namespace: 'shop' }, 'error'], // no labels: no such key
    ["has(object.metadata.labels) && 'app' in object.metadata.labels", { namespace: 'shop' }, false],
    ["'example.io/skip' in object.metadata.annotations", pod, true],
    ["object.metadata.labels['app'] == 'web'", pod, true],
    ["object.metadata.labels['app'] == 'api'", pod, false],
    ["object.metadata.labels['missing'] == 'x'", pod, 'error'],
    ["object.metadata.labels['missing'] == 'x' || true", pod, true],
    ["false && object.metadata.labels['missing'] == 'x'", pod, false],
    ["!(object.metadata.labels['app'] == 'web')", pod, false],
    ["!('nope' in object.metadata.labels) && (object.metadata.namespace == 'shop' || false)", pod, true],
    ["request.userInfo.username != 'system:serviceaccount:kube-system:replicaset-controller'", pod, 'unknown'],
    ["request.userInfo.username == 'admin'", { ...pod, username: 'admin' }, true],
    ['!("system:nodes" in request.userInfo.groups)', pod, 'unknown'],
    ['!(request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases")', pod, true],
    ["request.userInfo.username == 'x' || object.metadata.labels['app'] == 'web'", pod, true],
    ["request.userInfo.username == 'x' && object.metadata.labels['app'] == 'web'", pod, 'unknown'],
    // Outside the subset: not evaluated, never guessed.
    ["object.metadata.name.startsWith('web')", bare, 'unknown'],
    ["object.spec.containers.exists(c, c.name == 'x')", pod, 'unknown'],
    ["object.metadata.labels['app'] == 'web' ? true : false", pod, 'unknown'],
    ["'a\\'b' == 'x'", pod, 'unknown'],
    ['object.metadata.name == 1', bare, 'unknown'],
    ['((((', pod, 'unknown'],
    ['(true', pod, 'unknown'],
    ['!'.repeat(100) + 'true', pod, 'unknown'],
    ['', pod, 'unknown'],
  ] as const)('%s', (expr, req, want) => {
    expect(evalCel(expr, req)).toBe(want);
  });

  it('matchConditions: any false skips, an error rejects under Fail and skips under Ignore, unknown is counted', () => {
    const c = (name: string, expression: string) => ({ name, expression });
    expect(evalMatchConditions([c('a', 'true'), c('b', "'nope' in object.metadata.labels")], 'Fail', pod)).toEqual({
      decision: 'skip',
      names: ['b'],
    });
    expect(evalMatchConditions([c('e', "object.metadata.labels['x'] == 'y'")], 'Fail', pod)).toEqual({
      decision: 'reject',
      names: ['e'],
    });
    expect(evalMatchConditions([c('e', "object.metadata.labels['x'] == 'y'")], 'Ignore', pod).decision).toBe('skip');
    expect(evalMatchConditions([c('u', 'size(object.spec.containers) > 1')], 'Fail', pod)).toEqual({
      decision: 'unknown',
      names: ['u'],
    });
    // A false condition decides even beside an unevaluated one.
    expect(evalMatchConditions([c('u', 'size(x) > 1'), c('f', 'false')], 'Fail', pod).decision).toBe('skip');
  });

  it('admissionChain drops webhooks whose conditions are false for the pod and marks the ones that reject it', () => {
    const hook = (name: string, matchConditions: object[], extra: object = {}) => ({
      name,
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      matchConditions,
      ...extra,
    });
    const chain = admissionChain(
      [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: 'policy' },
          webhooks: [
            hook('skip-annotated.io', [
              { name: 'not-skipped', expression: "!('example.io/skip' in object.metadata.annotations)" },
            ]),
            hook('only-web.io', [{ name: 'web', expression: "object.metadata.labels['app'] == 'web'" }]),
            hook('tier.io', [{ name: 'tier', expression: "object.metadata.labels['tier'] == 'front'" }]),
            hook('tier-ignore.io', [{ name: 'tier', expression: "object.metadata.labels['tier'] == 'front'" }], {
              failurePolicy: 'Ignore',
            }),
            hook('user.io', [{ name: 'user', expression: "request.userInfo.username != 'system:admin'" }]),
          ],
        },
      ],
      [],
      { 'kubernetes.io/metadata.name': 'shop' },
      pod.labels,
      pod,
    );
    expect(chain.map((e) => e.webhook)).toEqual(['only-web.io', 'tier.io', 'user.io']);
    expect(chain[0]).not.toHaveProperty('matchConditions');
    expect(chain[1]).toMatchObject({ matchConditionErrors: ['tier'] });
    expect(chain[2]).toMatchObject({ matchConditions: 1 });
  });
});
