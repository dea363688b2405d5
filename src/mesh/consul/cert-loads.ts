/**
 * Whether consul-k8s's connect injector reloads the TLS certificate it serves (gen9time): it always has. Up to 0.x it
 * takes the pair from `-tls-cert-file`/`-tls-key-file` through `cert.DiskSource`, which watches the files and sends
 * every change to the webhook server (hashicorp/consul-k8s subcommand/inject-connect/command.go and
 * helper/cert/source_disk.go at v0.1.0, radovskyb/watcher; fsnotify later, as at v0.20.0); from 1.0 the
 * controller-runtime webhook server reads `-tls-cert-dir` with its certificate watcher
 * (control-plane/subcommand/inject-connect/command.go at v1.0.0, `mgr.GetWebhookServer().CertDir`). So a Consul
 * injector that started before its Secret's current certificate is not a stale-certificate case by itself:
 * component-cert-not-reloaded stays silent, and webhook-call-failed says the release reloads the file.
 */
import type { MountedCertLoad } from '../profile.js';

export const CONSUL_CERT_LOADS: readonly MountedCertLoad[] = [
  {
    container: 'sidecar-injector',
    serves: 'the connect injector webhook',
    reloadsFrom: '0.1.0',
    source:
      'hashicorp/consul-k8s subcommand/inject-connect/command.go and helper/cert/source_disk.go at v0.1.0 (cert.DiskSource watches the files); control-plane/subcommand/inject-connect/command.go at v1.0.0 (controller-runtime CertDir)',
  },
];
