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
