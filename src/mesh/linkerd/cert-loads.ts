/**
 * Which Linkerd components reload the TLS certificate of the Secret they mount, by release (gen9time):
 * the webhooks (proxy-injector, sp-validator) and the tap APIService read `tls.crt`/`tls.key` once at
 * start up to stable-2.9.2, `tls.X509KeyPair` in linkerd/linkerd2 controller/webhook/server.go and
 * controller/tap/apiserver.go at stable-2.9.0 to stable-2.9.2; from stable-2.9.3 they watch the files
 * (`pkgTls.NewFsCredsWatcher`, linkerd/linkerd2#5282 "Have webhooks refresh their certs automatically",
 * backported by #5675; CHANGES.md stable-2.9.3: "the Linkerd webhooks and apiservices would not refresh
 * their certs automatically when provided externally, like through cert-manager"). A pod of an older
 * release serves the certificate it started with after cert-manager renews the Secret or an upgrade
 * regenerates it (linkerd/linkerd2#5272, #5341, #5888).
 */
import type { MountedCertLoad } from '../profile.js';

const SOURCE =
  'linkerd/linkerd2 controller/webhook/server.go and controller/tap/apiserver.go: tls.X509KeyPair at start at stable-2.9.0 to stable-2.9.2, pkgTls.NewFsCredsWatcher from stable-2.9.3 (#5282, backported by #5675)';

export const LINKERD_CERT_LOADS: readonly MountedCertLoad[] = [
  { container: 'proxy-injector', serves: 'the proxy injector webhook', reloadsFrom: 'stable-2.9.3', source: SOURCE },
  {
    container: 'sp-validator',
    serves: 'the service profile validating webhook',
    reloadsFrom: 'stable-2.9.3',
    source: SOURCE,
  },
  { container: 'tap', serves: 'the tap APIService', reloadsFrom: 'stable-2.9.3', source: SOURCE },
];
