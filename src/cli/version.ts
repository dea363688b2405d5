import { readFileSync } from 'node:fs';

/** meshdoctor's version, from its package.json (two levels up from dist/cli/ and src/cli/). */
export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
