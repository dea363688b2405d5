/**
 * The YAML floor: read a file and parse it with the `yaml` package (what meshdoctor parses YAML
 * with), keeping the result.
 *
 *   node bench/floor-yaml.mjs FILE.yaml
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const doc = parse(readFileSync(process.argv[2], 'utf8'), { maxAliasCount: 100 });
process.stdout.write(JSON.stringify({ objects: doc.items.length }) + '\n');
