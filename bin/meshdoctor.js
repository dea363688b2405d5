#!/usr/bin/env node
// `--version` alone prints the version without loading the CLI's modules (startup: docs/performance.md).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V'))
  import('../dist/cli/version.js').then((v) => process.stdout.write(`${v.VERSION}\n`));
else import('../dist/cli.js').then((cli) => cli.run());
