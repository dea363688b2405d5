import { main } from '../../src/cli.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the CLI in-process with captured output; `tty` makes stdout/stderr look like terminals. */
export async function runCli(
  args: string[],
  opts: { tty?: boolean; env?: NodeJS.ProcessEnv; stdin?: string; clock?: () => Date; cwd?: string } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    stdoutTTY: !!opts.tty,
    stderrTTY: !!opts.tty,
    env: opts.env ?? {},
    readStdin: async () => opts.stdin ?? '',
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  return { code, stdout, stderr };
}

/**
 * `meshdoctor check -o json` run as a user runs it (the real read path: its read plan, with the
 * server reads), parsed, without what differs between two runs over the same cluster (the time of
 * the read, the tool's version): the report `watch` must serve on /findings.
 */
export async function checkReport(args: string[]): Promise<any> {
  const r = await runCli(['check', '-o', 'json', ...args]);
  if (r.stderr) throw new Error(`check ${args.join(' ')}: ${r.stderr}`);
  const report = JSON.parse(r.stdout);
  delete report.source.readAt;
  delete report.tool;
  return report;
}

/** A served /findings body made comparable with checkReport's. */
export function servedReport(body: string): any {
  const report = JSON.parse(body);
  delete report.source.readAt;
  delete report.tool;
  return report;
}
