/**
 * The runner of the real-report tests (test/reports-*.test.ts): each report is rebuilt as an overlay
 * on the healthy cluster of its mesh and release (test/fixtures/reports/<dir>/<file>.yaml, the thread
 * in each file's header) and must name its confirmed cause: a finding of the check `id` whose message
 * says every one of `says`. Where the cluster's state cannot show the cause (`unknowable`), the finding
 * must quote what it saw and say the cause is not known. `never` are words no finding may say (a
 * guessed cause) and `wrong` are checks whose findings would name a wrong cause: either fails the case.
 */
import { describe, expect, it } from 'vitest';
import { baseOf, cluster, findings } from './fixtures.js';

export interface ReportCase {
  file: string;
  /** The thread, owner/repo#number. */
  report: string;
  id: string;
  says: (string | RegExp)[];
  never?: RegExp[];
  wrong?: string[];
  unknowable?: true;
}

const says = (message: string, s: string | RegExp) => (typeof s === 'string' ? message.includes(s) : s.test(message));

/** The findings on one report's cluster, the one naming its cause (none when a wrong cause is also named). */
export function namedCause(dir: string, c: ReportCase) {
  const fs = findings(cluster(baseOf(c.file), [`reports/${dir}/${c.file}.yaml`]));
  const hit = fs.find((x) => x.id === c.id && c.says.every((s) => says(x.message, s)));
  const wrong = fs.filter((x) => (c.never ?? []).some((re) => re.test(x.message)) || (c.wrong ?? []).includes(x.id));
  return { fs, hit: wrong.length ? undefined : hit, wrong };
}

/**
 * One test per report, plus a summary line per report (HIT or MISS, the checks that fired). `open`
 * lists reports whose mechanism is still open: skipped, and still listed in the summary.
 */
export function reportCases(dir: string, title: string, cases: ReportCase[], open: string[] = []): void {
  describe(title, () => {
    for (const c of cases)
      (open.includes(c.file) ? it.skip : it)(`${c.report} (${c.file})`, () => {
        const { fs, hit, wrong } = namedCause(dir, c);
        expect(wrong.map((f) => `${f.id}: ${f.message}`)).toEqual([]);
        expect(hit, fs.map((f) => `${f.id}: ${f.message}`).join('\n')).toBeDefined();
      });

    it('summary', () => {
      const lines = cases.map((c) => {
        const { fs, hit } = namedCause(dir, c);
        const head = `${hit ? 'HIT ' : 'MISS'} ${c.report} ${c.file}${c.unknowable ? ' (unknowable: quoted)' : ''}`;
        const seen = fs.map((f) => f.id).join(', ') || '(silent)';
        return `${head}: ${seen}${hit ? '' : '\n      ' + fs.map((f) => f.message.slice(0, 400)).join('\n      ')}`;
      });
      const hits = lines.filter((l) => l.startsWith('HIT')).length;
      console.log(`${hits}/${cases.length}\n${lines.join('\n')}`);
      // An open report that is named now is no longer open: take it off the list.
      expect(cases.filter((c) => open.includes(c.file) && namedCause(dir, c).hit).map((c) => c.file)).toEqual([]);
    });
  });
}
