import type { Reporter } from './reporter.js';

import { json } from './json.js';
import { junit } from './junit.js';
import { markdown } from './markdown.js';
import { name } from './name.js';
import { sarif } from './sarif.js';
import { table, wide } from './table.js';
import { yaml } from './yaml.js';

/** Output formats, chosen by -o. */
export const REPORTERS: Record<string, Reporter> = { table, wide, json, yaml, name, sarif, junit, markdown };
