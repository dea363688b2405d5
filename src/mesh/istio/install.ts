/**
 * How istiod was installed and is changed: its revisions' names, the injector ConfigMap of a
 * revision, and the Helm and istioctl lines that re-render it or change one chart value.
 */
import { commandText } from '../helm.js';
import { choice, cmd, comment, lit, noteStep, text, type Edit, type Step, type Part } from '../../fix/steps.js';
import type { OperatorInstall } from '../release-table.js';

/** An istiod its distribution's operator renders (OpenShift Service Mesh), from the resource `name` in its namespace. */
interface OperatedBy {
  /** "OpenShift Service Mesh" (the table's), and its version as read ("2.5.1", from the cluster). */
  readonly distribution: string;
  readonly version: string;
  /** The resource's name; undefined when nothing read names it. */
  readonly name?: string;
  readonly install: OperatorInstall;
}

/** How an istiod was installed, as its fixes need it: the chart version to pin, its distribution's operator, or unknown. */
export type IstiodInstall = string | OperatedBy | undefined;

const operated = (i: IstiodInstall): i is OperatedBy => typeof i === 'object';
const resourceName = (o: OperatedBy): string => o.name ?? `YOUR-${o.install.kind.toUpperCase()}`;

/** The operator re-renders istiod from its resource: no Helm or istioctl line applies (comment, then its status). */
function operatorReinstall(ns: string, o: OperatedBy): Step[] {
  const r = o.install;
  return [
    comment`${lit(o.distribution)} ${o.version} is installed by ${lit(r.operator)} from ${lit(r.kind)} ${resourceName(o)} in ${ns}, not by Helm or istioctl: the operator re-renders istiod from it when it reconciles, and its status says whether it did`,
    cmd`kubectl -n ${ns} describe ${r.resource} ${resourceName(o)}`,
  ];
}

/** Changing a chart value of an istiod its operator renders: the field of its resource that renders it. */
function operatorValue(ns: string, o: OperatedBy, key: string, value: string, why: string): Step[] {
  const r = o.install;
  const row = r.values.find((v) => v.key === key);
  const set = row ? (row.values ? row.values[value] : value) : undefined;
  if (!row || set === undefined)
    return [
      comment`${lit(why)}${lit(o.distribution)} ${o.version} is installed by ${lit(r.operator)}: set the field of ${lit(r.kind)} ${resourceName(o)} that renders ${lit(key)}=${value}, no Helm or istioctl line applies`,
    ];
  const path = row.field.split('.');
  const edit: Edit = {
    kind: 'edit',
    target: { kind: r.kind, namespace: ns, name: resourceName(o) },
    path: path.slice(0, -1).join('.'),
    changes: [{ key: path[path.length - 1]!, value: set }],
  };
  return [
    comment`${lit(why)}${lit(o.distribution)} ${o.version} is installed by ${lit(r.operator)}, which renders ${lit(key)} from ${lit(r.kind)} field ${lit(row.field)}: set it there, no Helm or istioctl line applies`,
    edit,
  ];
}

const INJECTOR_CONFIG = 'istio-sidecar-injector';

/** The injector ConfigMap of a revision: `istio-sidecar-injector` (default) or `-<rev>` (sidecarinjector.go getInjectorConfigMapName). */
export const injectorConfigName = (rev: string | undefined): string =>
  !rev || rev === 'default' ? INJECTOR_CONFIG : `${INJECTOR_CONFIG}-${rev}`;

/** The istiod revision behind an injector Service: `istiod` -> default, `istiod-<rev>` -> rev (mutatingwebhook.yaml "core"). */
export const serviceRevision = (svc: string): string | undefined =>
  svc === 'istiod' ? 'default' : svc.startsWith('istiod-') ? svc.slice('istiod-'.length) : undefined;

/** Re-rendering istiod the way it was installed (comments: the user picks the install method). */
export function reinstallIstiod(ns: string, istiod: string, installed: IstiodInstall): Step[] {
  if (operated(installed)) return operatorReinstall(ns, installed);
  const version = installed;
  const rev = istiod.startsWith('istiod-') ? istiod.slice('istiod-'.length) : undefined;
  // Without --version, `helm upgrade` installs the newest chart: pinned, or a placeholder to fill in.
  const pin: Part = version !== undefined ? { value: version } : 'INSTALLED-VERSION';
  const istioctl = rev
    ? cmd`istioctl install -y --set revision=${rev} -f YOUR-ISTIOOPERATOR.yaml`
    : cmd`istioctl install -y -f YOUR-ISTIOOPERATOR.yaml`;
  return [
    choice(text`re-render the control plane the way it was installed: run the one line for your install method`, [
      { label: text`istioctl, with the profile and values you installed with`, steps: [istioctl] },
      {
        label: [
          version
            ? 'Helm'
            : 'Helm, with the version istiod runs, which is unknown: without --version Helm upgrades it to the newest chart',
        ],
        steps: [cmd`helm upgrade ${istiod} istio/istiod -n ${ns} --version ${[pin]} --reuse-values`],
      },
    ]),
  ];
}

/** Setting the policy the way the control plane was installed (global.proxy.autoInject, values.yaml). */
export function policyFix(ns: string, istiod: string, installed: IstiodInstall): Step[] {
  return chartUpgrade(ns, istiod, installed, 'global.proxy.autoInject', 'enabled');
}

/**
 * Changing one chart value of an installed istiod. `helm upgrade` without `--version` installs
 * the newest chart of the repository, i.e. upgrades istiod: the line pins the installed version,
 * and is only a comment when that version is unknown. istioctl re-renders the whole install from
 * what it is given, so its line is a comment naming the user's own IstioOperator/values. A
 * distribution its operator installs (OpenShift Service Mesh) has no chart to upgrade: the field of
 * its resource that renders the value, from the release table's data.
 */
export function chartUpgrade(
  ns: string,
  istiod: string,
  installed: IstiodInstall,
  key: string,
  value: string,
  opts: { why?: string } = {},
): Step[] {
  if (operated(installed)) return operatorValue(ns, installed, key, value, opts.why ? `${opts.why}: ` : '');
  const version = installed;
  const helm = (v: Part) =>
    cmd`helm upgrade ${istiod} istio/istiod -n ${ns} --version ${[v]} --reuse-values --set ${`${key}=${value}`}`;
  const why = opts.why ? `${opts.why}, ` : '';
  const istioctl = noteStep([
    `${why}if installed with istioctl, from your own IstioOperator and values, else istioctl installs its defaults: `,
    ...commandText(cmd`istioctl install -f YOUR-ISTIOOPERATOR.yaml --set ${`values.${key}=${value}`}`),
  ]);
  return version
    ? [
        noteStep([`${why}if installed with Helm, pinned to the installed `, { value: version }]),
        helm({ value: version }),
        istioctl,
      ]
    : [
        noteStep([
          `${why}if installed with Helm, with the version istiod runs, which is unknown: without --version Helm upgrades istiod to the newest chart: `,
          ...commandText(helm('INSTALLED-VERSION')),
        ]),
        istioctl,
      ];
}
