// Preload (node --import) that records every module specifier resolved, to the file named by
// $TRACE_IMPORTS_FILE: lets a test prove which commands load @kubernetes/client-node.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (process.env.TRACE_IMPORTS_FILE) appendFileSync(process.env.TRACE_IMPORTS_FILE, specifier + '\\n');
  return next(specifier, context);
}`),
);
