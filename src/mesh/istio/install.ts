/**
 * Istio's install, as its fixes need it: the names of the objects it creates per revision (the
 * injector ConfigMap, the istiod Service) and the commands that re-render or change an installed
 * istiod (Helm pinned to the installed release, or istioctl from the user's own IstioOperator).
 */
import { note, shq } from '../../util/objects.js';

const INJECTOR_CONFIG = 'istio-sidecar-injector';

/** The injector ConfigMap of a revision: `istio-sidecar-injector` (default) or `-<rev>` (sidecarinjector.go getInjectorConfigMapName). */
export const injectorConfigName = (rev: string | undefined): string => (!rev || rev === 'default' ? INJECTOR_CONFIG : `${INJECTOR_CONFIG}-${rev}`);

/** The istiod revision behind an injector Service: `istiod` -> default, `istiod-<rev>` -> rev (mutatingwebhook.yaml "core"). */
export const serviceRevision = (svc: string): string | undefined =>
  svc === 'istiod' ? 'default' : svc.startsWith('istiod-') ? svc.slice('istiod-'.length) : undefined;

/** Re-rendering istiod the way it was installed (comments: the user picks the install method). */
export function reinstallIstiod(ns: string, istiod: string, version: string | undefined): string[] {
  const rev = istiod.startsWith('istiod-') ? istiod.slice('istiod-'.length) : undefined;
  // Without --version, `helm upgrade` installs the newest chart: pinned, or a placeholder to fill in.
  const pin = version ? `--version ${shq(version)}` : '--version INSTALLED-VERSION';
  return [
    '# re-render the control plane the way it was installed: run the one line for your install method',
    `# istioctl, with the profile and values you installed with: istioctl install -y${rev ? ` --set revision=${shq(rev)}` : ''} -f YOUR-ISTIOOPERATOR.yaml`,
    `# Helm${version ? '' : ', with the version istiod runs, which is unknown: without --version Helm upgrades it to the newest chart'}: helm upgrade ${shq(istiod)} istio/istiod -n ${shq(ns)} ${pin} --reuse-values`,
  ];
}

/** Setting the policy the way the control plane was installed (global.proxy.autoInject, values.yaml). */
export function policyFix(ns: string, istiod: string, version: string | undefined): string[] {
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
  opts: { quotedNs?: boolean; why?: string } = {},
): string[] {
  const set = shq(`${key}=${value}`);
  const helm = (v: string) => `helm upgrade ${shq(istiod)} istio/istiod -n ${opts.quotedNs ? ns : shq(ns)} --version ${v} --reuse-values --set ${set}`;
  const why = opts.why ? `${opts.why}, ` : '';
  const istioctl = `# ${why}if installed with istioctl, from your own IstioOperator and values, else istioctl installs its defaults: istioctl install -f YOUR-ISTIOOPERATOR.yaml --set ${shq(`values.${key}=${value}`)}`;
  return version
    ? [`# ${why}if installed with Helm, pinned to the installed ${note(version)}`, helm(shq(version)), istioctl]
    : [
        `# ${why}if installed with Helm, with the version istiod runs, which is unknown: without --version Helm upgrades istiod to the newest chart: ${helm('INSTALLED-VERSION')}`,
        istioctl,
      ];
}
