/** `meshdoctor explain kind/name`: one workload through the injection decision of every installed mesh. */
import { EXIT } from '../util/errors.js';
import { runDeadline, widthOf, type CommandContext } from './io.js';
import { addFlags, limitsOf, validateScope, type OptionsOf } from './options.js';
import { VERSION } from './version.js';

export function explainCommand({ program, io, setExit }: CommandContext): void {
  addFlags(
    program
      .command('explain')
      .argument('<kind/name>', 'the workload: deployment/NAME, statefulset/NAME, daemonset/NAME, job/NAME, cronjob/NAME, replicaset/NAME or pod/NAME')
      .description('walk one workload through the injection decision of every installed mesh, step by step'),
    'explain',
  ).action(async (targetArg: string, o: OptionsOf<'explain'>) => {
    validateScope(o);
    const deadline = await runDeadline(io, limitsOf(o));
    const { parseTarget, explain } = await import('../run/explain.js');
    const target = parseTarget(targetArg);
    const { CHECKS } = await import('../checks/index.js');
    const { kindsFor, makeModel, obtainSnapshot, runChecks, serverFor } = await import('../run/run.js');
    const snapshot = await obtainSnapshot({ ...o, limits: limitsOf(o), server: serverFor(CHECKS) }, kindsFor(CHECKS));
    const ns = o.namespace ?? snapshot.scope.namespace ?? 'default';
    const scoped = { ...snapshot, scope: { allNamespaces: false, namespace: ns } };
    const model = makeModel(scoped, { mesh: o.mesh, certExpiryWarningDays: 60, deadline });
    const result = runChecks(scoped, CHECKS, { mesh: o.mesh, certExpiryWarningDays: 60, deadline }, model);
    const e = explain(model, target, ns, result.findings, result);
    if (o.output === 'json') {
      io.stdout(JSON.stringify({ schemaVersion: 2, tool: { name: 'meshdoctor', version: VERSION }, ...e }, null, 2) + '\n');
    } else {
      const { renderExplanation } = await import('../report/explain.js');
      io.stdout(renderExplanation(e, o.color !== false && io.stdoutTTY && !io.env.NO_COLOR, widthOf(io)));
    }
    // Findings do not decide explain's exit code; what was not read does, as for check (3, incomplete).
    setExit(result.coverage.complete || o.allowPartial ? EXIT.OK : EXIT.INCOMPLETE);
  });
}
