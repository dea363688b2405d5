#!/usr/bin/env node
// kubectl (1.26+) runs kubectl_complete-meshdoctor for `kubectl meshdoctor ... <TAB>`, with the
// words after `meshdoctor`: meshdoctor's hidden __complete prints the candidates. After `--` no
// word is taken for an option of meshdoctor's own.
process.argv.splice(2, 0, '__complete', '--');
import('../dist/cli.js').then((cli) => cli.run());
