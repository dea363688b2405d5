/**
 * Real user reports (issue 31, gen9refs: markers and settings whose values NAME an object that must exist), each
 * rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen9refs/, the thread
 * in each file's header). Each must name the confirmed cause: the check and the words that make it the cause.
 * Named 0/4 before (commit d3452fc): all four silent. 4/4 after: one table of references per mesh and release and one
 * resolver (reference-missing: Consul's service name against the pods' ServiceAccount under ACLs, Kuma's ContainerPatch
 * named while not read), and OpenShift Service Mesh's member roll (webhook-excludes-namespace: not a member).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'consul-0.x-acls-connect-service-not-serviceaccount',
    report: 'hashicorp/consul-helm#202',
    id: 'reference-missing',
    says: ['consul.hashicorp.com/connect-service', 'web-sa', /ServiceAccount/],
  },
  {
    file: 'consul-0.x-acls-first-container-name-not-serviceaccount',
    report: 'hashicorp/vault-helm#206',
    id: 'reference-missing',
    says: ['vault', 'poc-vault', /first container/],
  },
  {
    file: 'istio-ossm-2-maistra-0.12-namespace-not-in-member-roll',
    report: 'maistra/istio#35',
    id: 'webhook-excludes-namespace',
    says: ['default', 'maistra.io/member-of', /ServiceMeshMemberRoll|member roll/],
  },
  {
    file: 'kuma-1.x-container-patches-names-missing-patch',
    report: 'kumahq/kuma#4356',
    id: 'reference-missing',
    says: ['container-patch-tmpfs', 'ContainerPatch', /not read|not examined/],
  },
];

reportCases('gen9refs', 'real reports: markers naming objects that must exist', CASES);
