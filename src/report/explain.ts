import { Chalk } from 'chalk';
import type { Explanation } from '../run/explain.js';
import { clean } from './text.js';
import { coverageLines, declinedLines } from './table.js';

/** The table rendering of `explain`: the decision, step by step; what was not read says so. */
export function renderExplanation(e: Explanation, color: boolean, width = 80): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  // ✓ / ✗, and ? where it was not examined.
  const mark = (ok: boolean | null) => (ok === null ? c.yellow('?') : ok ? c.green('✓') : c.red('✗'));
  const said = (ok: boolean | null, text: string) => (ok ? c.green(clean(text)) : c.yellow(clean(text)));
  const w = e.workload;
  const out: string[] = [c.bold(clean(`${w.kind} ${w.namespace}/${w.name}`))];
  if (e.via) out.push(c.dim(clean(e.via)));
  if (e.meshes.length === 0)
    out.push(
      '',
      e.meshesNotExamined
        ? c.yellow(clean(`Which meshes are installed was not examined (${e.meshesNotExamined}).`))
        : 'No mesh is installed (no injection webhook, control plane or meshed pod found).',
    );
  // The short verdict first; the step-by-step walk after it.
  const pl = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  const meshed = Object.entries(e.now.meshed).map(([mesh, pods]) => `${pods!.length} with ${mesh}`);
  // The meshes the workload or its namespace asks for (or that would inject it, or could not be
  // judged) lead, in full; the others, which it never asked, are one line: a red cross for a mesh
  // nobody asked is no problem. When it asks none, every mesh is shown (why is none injecting?).
  const concerned = (m: (typeof e.meshes)[number]) => m.asked || m.wouldInject !== false;
  const lead = e.meshes.some(concerned) ? e.meshes.filter(concerned) : e.meshes;
  const others = e.meshes.filter((m) => !lead.includes(m));
  const otherNames = new Set<string>(others.map((m) => m.mesh));
  if (e.meshes.length) out.push('');
  for (const m of lead) out.push(`${mark(m.wouldInject)} ${m.mesh}: ${said(m.wouldInject, m.verdict)}`);
  if (others.length)
    out.push(
      c.dim(
        `  also installed, not asked for: ${others.map((m) => m.mesh).join(', ')} (${others.length === 1 ? 'it does' : 'they do'} not inject it; -o json has the steps)`,
      ),
    );
  // Pods enrolled in a sidecar-less data plane are meshed: not "without a proxy".
  const enrolled = e.sidecarless
    ? [`${e.sidecarless.enrolled.length} in ${e.sidecarless.mesh} ${e.sidecarless.mode}`]
    : [];
  const bare = e.now.unmeshed.filter((n) => !e.sidecarless?.enrolled.includes(n));
  out.push(
    e.now.notExamined
      ? c.yellow(clean(`now:        not examined (${e.now.notExamined})`))
      : `now:        ${pl(e.now.pods, 'active pod')}${[...meshed, ...enrolled].map((x) => `, ${x}`).join('')}, ${bare.length} without a proxy${bare.length ? `: ${clean(bare.slice(0, 5).join(', '))}${bare.length > 5 ? ', ...' : ''}` : ''}`,
  );
  if (e.sidecarless)
    out.push(
      `${e.sidecarless.mesh} ${clean(e.sidecarless.mode)}: ${clean(e.sidecarless.by)} (no sidecar marker needed)`,
    );
  out.push(`on restart: ${clean(e.onRestart)}`);
  // Findings about a mesh the workload never asked for are another team's: counted, not listed.
  const findings = e.findings.filter((f) => !otherNames.has(f.mesh));
  const elsewhere = e.findings.length - findings.length;
  if (findings.length || elsewhere) {
    out.push('', 'findings:');
    if (elsewhere)
      out.push(
        c.dim(
          `  ${elsewhere} about ${others
            .map((m) => m.mesh)
            .filter((x) => e.findings.some((f) => f.mesh === x))
            .join(', ')}, not asked for by this workload: meshdoctor check -A`,
        ),
      );
    for (const f of findings) {
      out.push(`  ${f.severity.toUpperCase()} ${f.code} ${f.id}: ${clean(f.message)}`);
      for (const cmd of f.fix) out.push(`    ${c.green(clean(cmd))}`);
    }
  }
  // The same coverage block as `check`: what was not read, the checks it kept from running, the RBAC.
  if (e.coverage && !e.coverage.complete) {
    const skipped = e.skipped ?? [];
    out.push(
      '',
      ...coverageLines(
        { coverage: e.coverage, skipped, summary: { checksRun: e.checksRun ?? 0, checksSkipped: skipped.length } },
        c,
        width,
      ),
    );
  } else if (e.coverage) {
    const declined = declinedLines(e.coverage, c, width);
    if (declined.length) out.push('', ...declined);
  }
  if (e.meshes.length) out.push('', c.bold('step by step:'));
  for (const m of lead) {
    const ne = m.notExamined ?? {};
    const marker = ne.namespace ? `not examined (${ne.namespace})` : (m.namespaceMarker ?? 'none');
    out.push('', c.bold(`${m.mesh}`) + c.dim(`  namespace marker: ${clean(marker)}`));
    let step = 1;
    const unknownCalls = ne.webhooks ?? ne.namespace;
    if (unknownCalls) out.push(`  ${step++}. ${mark(null)} webhooks: not examined (${clean(unknownCalls)})`);
    else if (m.webhooks.length === 0) out.push(`  ${step++}. ${mark(false)} no injection webhook installed`);
    for (const h of m.webhooks) {
      const state =
        h.callFails === null
          ? 'called; whether the call succeeds was not examined'
          : h.callFails
            ? 'called, but the call fails (its service cannot answer)'
            : h.called
              ? 'called'
              : 'not called';
      out.push(
        `  ${step++}. ${mark(h.callFails === null ? null : h.called && !h.callFails)} webhook ${clean(h.configuration)} / ${clean(h.webhook)} ${c.dim(`(failurePolicy ${h.failurePolicy})`)}: ${state}`,
      );
      out.push(`       ${mark(h.rulesMatchPodCreate)} rules: CREATE pods`);
      if (h.backend)
        out.push(
          `       ${mark(h.backend.readyEndpoints > 0)} service ${clean(h.backend.service)}: ${h.backend.readyEndpoints} ready endpoint${h.backend.readyEndpoints === 1 ? '' : 's'}${h.backend.notReadyEndpoints ? `, ${h.backend.notReadyEndpoints} not ready` : ''}`,
        );
      else if (h.called && ne.service) out.push(`       ${mark(null)} service: not examined (${clean(ne.service)})`);
      for (const [label, sel] of [
        ['namespaceSelector', h.namespaceSelector],
        ['objectSelector', h.objectSelector],
      ] as const) {
        const terms = sel.terms.length
          ? sel.terms.map((t) => `${mark(t.matched)} ${clean(t.term)}`).join('  ')
          : c.dim('(matches everything)');
        out.push(`       ${mark(sel.matched)} ${label}: ${terms}`);
      }
    }
    if (ne.namespace) out.push(`  ${step}. injector rules: not examined (${clean(ne.namespace)})`);
    else {
      const reached = unknownCalls
        ? c.dim(' (whether they are reached was not examined)')
        : m.webhooks.some((h) => h.called)
          ? ''
          : c.dim(' (not reached: shown for completeness)');
      out.push(`  ${step}. injector rules${reached}`);
      for (const s of m.injector) out.push(`       ${mark(s.unknown ? null : s.ok)} ${s.rule}: ${clean(s.detail)}`);
    }
    out.push(`  verdict: ${said(m.wouldInject, m.verdict)}`);
  }
  return out.join('\n') + '\n';
}
