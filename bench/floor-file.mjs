/**
 * The offline floor: read a snapshot file and JSON.parse it, keeping the result. The least any
 * program can do to load what `meshdoctor check -A --snapshot FILE` loads.
 *
 *   node bench/floor-file.mjs FILE.json
 */
import { readFileSync } from 'node:fs';

const snap = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const objects = Object.values(snap.objects ?? {}).reduce((n, l) => n + l.length, 0);
process.stdout.write(JSON.stringify({ objects }) + '\n');
