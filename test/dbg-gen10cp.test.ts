import { it } from 'vitest';
import { readdirSync } from 'node:fs';
import { baseOf, cluster, findings } from './helpers/fixtures.js';
it('dbg', () => {
  for (const f of readdirSync('test/fixtures/reports/gen10cp').map((x) => x.replace(/\.yaml$/, ''))) {
    const fs = findings(cluster(baseOf(f), [`reports/gen10cp/${f}.yaml`]));
    console.log(`== ${f}\n` + fs.map((x) => `${x.id} ${x.causeKey ?? ''} <- ${x.causedBy ?? ''}: ${x.message}\n   ${x.fix.join('\n   ')}`).join('\n'));
  }
});
