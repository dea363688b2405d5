#!/usr/bin/env node
// `--version` alone prints the version without loading the CLI's modules (startup: docs/performance.md).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V'))
  import('../dist/cli/version.js').then((v) => {
    // As the CLI: a write that fails (a full disk) is one line and exit 2; a closed pipe is not an error.
    process.stdout.on('error', () => {});
    process.stdout.write(`${v.VERSION}\n`, (e) => {
      if (!e || e.code === 'EPIPE') return;
      process.stderr.write(`meshdoctor: cannot write to stdout: ${e.message}\n`);
      process.exitCode = 2;
    });
  });
else import('../dist/cli.js').then((cli) => cli.run());
