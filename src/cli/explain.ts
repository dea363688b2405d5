/** `meshdoctor explain kind/name`: one workload through the injection decision of every installed mesh. */
import { InvalidArgumentError } from 'commander';
import { EXIT } from '../util/errors.js';
import { colorOf, runDeadline, widthOf, type CommandContext } from './io.js';
import { addFlags, impersonationOf, limitsOf, validateScope, type OptionsOf } from './options.js';
import { VERSION } from './version.js';

export function explainCommand({ program, io, setExit }: CommandContext): void {
  const command = addFlags(
    program
      .command('explain')
      .argument(
        '<kind/name>',
        'the workload: deployment/NAME, statefulset/NAME, daemonset/NAME, job/NAME, cronjob/NAME, replicaset/NAME or pod/NAME',
      )
      .argument('[name]', "the name, when the kind is given alone (kubectl's TYPE NAME: explain deploy cart)")
      .description('walk one workload through the injection decision of every installed mesh, step by step'),
    'explain',
  );
  // -o jsonpath=TEMPLATE over the -o json document, as check takes it (src/report/jsonpath.ts)
  const output = command.options.find((x) => x.long === '--output')!;
  const formats = output.argChoices ?? [];
  output.argParser((v: string) => {
    if (formats.includes(v) || v.startsWith('jsonpath=')) return v;
    throw new InvalidArgumentError(`Allowed choices are ${formats.join(', ')}, jsonpath=TEMPLATE.`);
  });
  command.action(async (targetArg: string, nameArg: string | undefined, o: OptionsOf<'explain'>) => {
    validateScope(o);
    const jsonpath = o.output?.startsWith('jsonpath=')
      ? await import('../report/jsonpath.js').then((m) => ({ m, nodes: m.compileJsonPath(o.output!.slice(9)) }))
      : undefined;
    const deadline = await runDeadline(io, limitsOf(o));
    const { parseTarget, explain } = await import('../run/explain.js');
    const target = parseTarget(targetArg, nameArg);
    const { makeModel, obtainSnapshot, runChecks } = await import('../run/run.js');
    const { openSession } = await import('../run/session.js');
    // Every check, with check's read plan and options (the certificate window of --cert-expiry-warning).
    const session = openSession({ mesh: o.mesh, certExpiryWarningDays: o.certExpiryWarning });
    const impersonate = impersonationOf(o);
    const snapshot = await obtainSnapshot(
      {
        ...o,
        limits: limitsOf(o),
        readStdin: (maxBytes: number) => io.readStdin(maxBytes, deadline),
        server: session.plan.server,
        ...(impersonate ? { impersonate } : {}),
      },
      [...session.plan.kinds],
    );
    const ns = o.namespace ?? snapshot.scope.namespace ?? 'default';
    const scoped = { ...snapshot, scope: { allNamespaces: false, namespace: ns } };
    const model = makeModel(scoped, { ...session.options, deadline });
    const result = runChecks(scoped, session.checks, { ...session.options, deadline }, model);
    const e = explain(model, target, ns, result.findings, result);
    const doc = { schemaVersion: 2, tool: { name: 'meshdoctor', version: VERSION }, ...e };
    if (jsonpath) {
      io.stdout(jsonpath.m.jsonPathText(jsonpath.nodes, doc));
    } else if (o.output === 'json') {
      io.stdout(JSON.stringify(doc, null, 2) + '\n');
    } else if (o.output === 'yaml') {
      const { toYaml } = await import('../report/yaml.js');
      io.stdout(toYaml(JSON.parse(JSON.stringify(doc))));
    } else {
      const { renderExplanation } = await import('../report/explain.js');
      io.stdout(renderExplanation(e, colorOf(io, o.color), widthOf(io)));
    }
    // Findings do not decide explain's exit code; what was not read does, as for check (3, incomplete).
    setExit(result.coverage.complete || o.allowPartial ? EXIT.OK : EXIT.INCOMPLETE);
  });
}
