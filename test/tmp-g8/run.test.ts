import { it } from 'vitest';
import { baseOf, cluster, findings } from '../helpers/fixtures.js';
it('x', () => {
  for (const f of (process.env.FX ?? '').split(',')) {
    const fs = findings(cluster(baseOf(f.split('/').pop()!), [f]));
    console.log(f, '\n' + fs.map((x) => `${x.id}: ${x.message}`).join('\n'));
  }
});
