/** `meshdoctor watch`: keep the checks current (LIST+WATCH) and serve them; everything lives in src/watch/, loaded only here. */
import { EXIT } from '../util/errors.js';
import { docsBaseOf, type CommandContext } from './io.js';
import { addFlags, impersonationOf, limitsOf, validateScope, type OptionsOf } from './options.js';
import { VERSION } from './version.js';

export function watchCommand({ program, io, setExit }: CommandContext): void {
  addFlags(
    program
      .command('watch')
      .description(
        'keep the checks current (LIST+WATCH); serve /metrics, /healthz, /readyz, /findings; NDJSON on stdout per finding opened or resolved',
      ),
    'watch',
  ).action(async (o: OptionsOf<'watch'>) => {
    validateScope(o);
    const { parseSuppressions } = await import('../run/suppress.js');
    const { runWatch } = await import('../watch/index.js');
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      const docsBase = docsBaseOf(io);
      await runWatch(
        {
          ...o,
          allNamespaces: !!o.allNamespaces,
          ...(impersonationOf(o) ? { impersonate: impersonationOf(o) } : {}),
          limits: limitsOf(o),
          certExpiryWarningDays: o.certExpiryWarning,
          suppress: parseSuppressions(o.suppress),
          maxSeries: Math.floor(o.maxSeries),
          version: VERSION,
          ...(docsBase ? { docsBase } : {}),
        },
        { stdout: io.stdout, stderr: io.stderr, signal: stop.signal },
      );
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    setExit(EXIT.OK);
  });
}
