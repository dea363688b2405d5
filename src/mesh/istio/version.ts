/**
 * The version of an installed istiod, from its image (the rule set its injector parses
 * `sidecar.istio.io/inject` with depends on it) and the release a chart upgrade pins.
 */
import { defineFactFamily } from '../../k8s/fact.js';
import { containers, podSpec } from '../../k8s/pods.js';
import type { MeshContext } from '../context.js';
import { isObj, labelsOf, nameOf, nsOf, str } from '../../util/objects.js';
import { configValues, valueAt } from '../config-values.js';
import { injectorConfigName, serviceRevision, type IstiodInstall } from './install.js';
import { distributionOf, readingOf } from '../releases.js';
import type { ValueReading } from '../release-table.js';
import { ISTIO_LOOSE_READING, ISTIO_RELEASES } from './releases.js';

/**
 * The rule set the injector parses `sidecar.istio.io/inject` with. `exact` (1.27.0 and later,
 * commit 331d32e3, istio/istio#56737, first tag 1.27.0 7359d8be): only "true" and "false" count,
 * any other value falls back to the selectors and policy. `loose` (1.26.x and before, inject.go
 * @1.26.0 line 225): lower-cased y/yes/true/on inject, "" defers, any other value is an explicit
 * "do not inject".
 */
export type IstioRules = 'exact' | 'loose';

interface IstioVersion {
  /** "1.27.1", or undefined when unknown. */
  version?: string;
  /** The istiod image read, when one was. */
  image?: string;
  /** "istio-system/istiod". */
  deployment?: string;
  rules: IstioRules;
  /** Evidence: which rule set, and why. */
  text: string;
}

/**
 * The version in an istiod image tag: `<hub>/pilot:<tag>[-<variant>]` (templates/deployment.yaml;
 * variants `distroless` and `debug`, inject.go KnownImageTypes); vendor tags such as
 * `1.11.2-asm.17-distroless` keep their leading x.y.z. A digest-only image has no version.
 */
export function imageVersion(image: string): { major: number; minor: number; text: string } | undefined {
  const noDigest = image.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  if (colon <= slash) return undefined;
  const tag = noDigest
    .slice(colon + 1)
    .replace(/-(distroless|debug)$/, '')
    .replace(/^v/, '');
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(tag);
  return m ? { major: Number(m[1]), minor: Number(m[2]), text: m[0] } : undefined;
}

/** How a release reads `sidecar.istio.io/inject`: its release-table row's `parses` (releases.ts; 1.27.0 is the first exact one, research/istio.md §2). */
export const readingAt = (version: string): ValueReading =>
  readingOf(ISTIO_RELEASES, ISTIO_LOOSE_READING.key, version)!;

/** The rule set of a version: 'loose' where its release reads any other value as an opt-out, else 'exact'. */
export const rulesOf = (v: { major: number; minor: number }): IstioRules =>
  readingAt(`${v.major}.${v.minor}`).otherwise === 'skip' ? 'loose' : 'exact';

const ISTIOD_VERSION = defineFactFamily({
  id: 'istiod-version',
  inputs: ['configmaps', 'deployments'],
  cacheKey: (k: { ns: string | undefined; deployment: string | undefined }) => `${k.ns ?? ''}/${k.deployment ?? ''}`,
  compute: (
    m: MeshContext,
    { ns, deployment }: { ns: string | undefined; deployment: string | undefined },
  ): IstioVersion => {
    const d = ns && deployment ? m.get('deployments', ns, deployment) : undefined;
    const cs = d ? containers(podSpec(isObj(d.spec) ? (d.spec.template as { spec?: unknown }) : undefined)) : [];
    const image = str((cs.find((c) => c.name === 'discovery') ?? cs[0])?.image);
    const where = ns && deployment ? `${ns}/${deployment}` : undefined;
    const fromImage = image ? imageVersion(image) : undefined;
    // An image pinned by digest (pilot@sha256:...) or a custom tag names no version: the chart's
    // labels and values still do. `app.kubernetes.io/version` (Chart.AppVersion) and
    // `helm.sh/chart: istiod-<version>` are on every resource the chart renders from 1.24.0
    // (templates/zzz_profile.yaml "istio.labels", commit b722511e, istio/istio#52463); the injector
    // ConfigMap's `values` carry `global.tag`, the image tag the chart was rendered with
    // (templates/istiod-injector-configmap.yaml, deployment.yaml image @86c9f01f).
    // Read only when the image names no version (checks that pin a Helm line declare configmaps optional).
    const cm =
      !fromImage && ns && deployment
        ? m.get('configmaps', ns, injectorConfigName(serviceRevision(deployment)))
        : undefined;
    const tag = valueAt(configValues(cm) ?? {}, 'global', 'tag');
    const candidates: [string | undefined, string][] = [
      [labelsOf(d)['app.kubernetes.io/version'], `Deployment ${where ?? ''} label app.kubernetes.io/version`],
      [labelsOf(d)['helm.sh/chart']?.replace(/^istiod-/, ''), `Deployment ${where ?? ''} label helm.sh/chart`],
      [
        typeof tag === 'string' ? tag : undefined,
        `ConfigMap ${cm ? `${nsOf(cm)}/${nameOf(cm)}` : ''} values global.tag`,
      ],
      [
        labelsOf(cm)['app.kubernetes.io/version'],
        `ConfigMap ${cm ? `${nsOf(cm)}/${nameOf(cm)}` : ''} label app.kubernetes.io/version`,
      ],
    ];
    const other = fromImage
      ? undefined
      : candidates.map(([v, from]) => ({ v: v ? imageVersion(`x:${v}`) : undefined, from })).find((c) => c.v);
    const v = fromImage ?? other?.v;
    if (!v) {
      const why = !m.has('deployments')
        ? 'Deployments were not read'
        : !d
          ? `Deployment ${where ?? 'istiod'} not found`
          : `image ${image ?? '(none)'} has no version tag, nor do the chart's labels and values`;
      return {
        ...(image ? { image } : {}),
        ...(where ? { deployment: where } : {}),
        rules: 'exact',
        text: `Istio version unknown (${why}): the rules of Istio 1.27 and later are assumed`,
      };
    }
    // A distribution's own version numbers (OpenShift Service Mesh 2.5 is Istio 1.18): the rules of the release it is built from.
    const dist = image ? distributionOf(ISTIO_RELEASES, image, v.text) : undefined;
    const built = dist?.release ? imageVersion(`x:${dist.release}`) : undefined;
    const rules = rulesOf(built ?? v);
    const source = `${
      fromImage ? `runs ${image}` : `runs ${image ?? 'an image'} without a version tag; ${other!.from} says ${v.text}`
    }${built ? ` (${dist!.title} ${v.text}, built from Istio ${dist!.release})` : ''}`;
    return {
      version: v.text,
      ...(image ? { image } : {}),
      deployment: where!,
      rules,
      text: `istiod ${where} ${source}: the rules of Istio ${rules === 'exact' ? '1.27 and later' : 'before 1.27'} apply`,
    };
  },
});

/**
 * The version of the istiod Deployment `deployment` in `ns` (its `discovery` container's image).
 * Unknown (Deployments not read, the Deployment absent, a tag without a version): the 1.27+ rules
 * are assumed, deliberately, since every Istio release still supported at the time of writing
 * (1.28 to 1.30, research/istio.md §5) has them; the evidence says so.
 */
export function istiodVersion(m: MeshContext, ns: string | undefined, deployment: string | undefined): IstioVersion {
  return m.fact(ISTIOD_VERSION, { ns, deployment });
}

/**
 * The release an istiod Deployment runs, as a chart version ("1.27.1"): istio/istiod charts are
 * versioned like the release (manifests/charts/istio-control/istio-discovery/Chart.yaml @86c9f01f,
 * `version: 1.0.0` rewritten to the release when published). Undefined unless x.y.z is known; for
 * a distribution its operator installs, that operator's resource (the release table's `installedBy`).
 */
export function istiodRelease(m: MeshContext, ns: string, deployment: string): IstiodInstall {
  const read = istiodVersion(m, ns, deployment);
  const v = read.version;
  // A distribution its operator installs (OpenShift Service Mesh 2.5.1): no istio/istiod chart to pin, its resource instead.
  const dist = read.image && v ? distributionOf(ISTIO_RELEASES, read.image, v) : undefined;
  if (dist?.installedBy && v) {
    const by = dist.installedBy;
    const d = m.get('deployments', ns, deployment);
    const label = labelsOf(d)[by.nameLabel];
    const name = label || (deployment.startsWith(by.namePrefix) ? deployment.slice(by.namePrefix.length) : undefined);
    return { distribution: dist.title, version: v, ...(name ? { name } : {}), install: by };
  }
  return v && /^\d+\.\d+\.\d+$/.test(v) ? v : undefined;
}
