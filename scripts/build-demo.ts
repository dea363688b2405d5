// Builds demo/cluster.json: both healthy meshes with a handful of the problems meshdoctor finds,
// taken from the check fixtures (listed below). Run: npx tsx scripts/build-demo.ts
import { writeFileSync } from 'node:fs';
import { snapshotText } from '../src/cluster/snapshot-file.js';
import { NOW, baseObjects, fixtureObjects, overlay, snapshotFrom } from '../test/helpers/fixtures.js';

const PROBLEMS = [
  'checks/injector-oomkilled/fires-linkerd-chain.yaml', // OOMKilled injector -> no endpoints -> pods without proxy
  'checks/pod-opted-out/fires-istio.yaml',
  'checks/pod-predates-enablement/fires-istio.yaml',
  'checks/namespace-not-enabled/mixed-linkerd.yaml',
  'checks/injection-marker-invalid/fires-linkerd-workload.yaml',
  'checks/quota-blocks-proxy/fires-linkerd-must-specify.yaml',
  'checks/job-never-completes/fires-istio-cronjob-hung.yaml',
  'checks/webhook-excludes-namespace/fires-istio.yaml',
];

const objects = overlay(baseObjects('both'), ...PROBLEMS.map(fixtureObjects));
// A meshdoctor snapshot read at a fixed time, so the demo's output (ages, certificate days left)
// does not change with the day it is run.
const snap = snapshotFrom(objects);
snap.source = { type: 'file', readAt: NOW.toISOString() };
writeFileSync('demo/cluster.json', [...snapshotText(snap)].join(''));
console.error(`demo/cluster.json: ${objects.length} objects, read at ${NOW.toISOString()} (from ${PROBLEMS.length} fixtures)`);
