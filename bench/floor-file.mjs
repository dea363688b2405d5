/**
 * The offline floor: read a file and JSON.parse it, keeping the result. The least any program can
 * do to load what `meshdoctor check -A --snapshot FILE` loads (a kubectl List or meshdoctor's
 * snapshot, both JSON).
 *
 *   node bench/floor-file.mjs FILE.json
 */
import { readFileSync } from 'node:fs';

const doc = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const objects = doc.items?.length ?? Object.values(doc.objects ?? {}).reduce((n, l) => n + l.length, 0);
process.stdout.write(JSON.stringify({ objects }) + '\n');
