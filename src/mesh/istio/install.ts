/**
 * How istiod was installed and is changed: its revisions' names, the injector ConfigMap of a
 * revision, and the Helm and istioctl lines that re-render it or change one chart value.
 */
import { commandText } from '../helm.js';
import { choice, cmd, noteStep, text, type Step, type Part } from '../../fix/steps.js';

const INJECTOR_CONFIG = 'istio-sidecar-injector';

/** The injector ConfigMap of a revision: `istio-sidecar-injector` (default) or `-<rev>` (sidecarinjector.go getInjectorConfigMapName). */
export const injectorConfigName = (rev: string | undefined): string =>
  !rev || rev === 'default' ? INJECTOR_CONFIG : `${INJECTOR_CONFIG}-${rev}`;

/** The istiod revision behind an injector Service: `istiod` -> default, `istiod-<rev>` -> rev (mutatingwebhook.yaml "core"). */
export const serviceRevision = (svc: string): string | undefined =>
  svc === 'istiod' ? 'default' : svc.startsWith('istiod-') ? svc.slice('istiod-'.length) : undefined;

/** Re-rendering istiod the way it was installed (comments: the user picks the install method). */
export function reinstallIstiod(ns: string, istiod: string, version: string | undefined): Step[] {
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
export function policyFix(ns: string, istiod: string, version: string | undefined): Step[] {
  return chartUpgrade(ns, istiod, version, 'global.proxy.autoInject', 'enabled');
}

/**
 * Changing one chart value of an installed istiod. `helm upgrade` without `--version` installs
 * the newest chart of the repository, i.e. upgrades istiod: the line pins the installed version,
 * and is only a comment when that version is unknown. istioctl re-renders the whole install from
 * what it is given, so its line is a comment naming the user's own IstioOperator/values.
 */
export function chartUpgrade(
  ns: string,
  istiod: string,
  version: string | undefined,
  key: string,
  value: string,
  opts: { why?: string } = {},
): Step[] {
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
