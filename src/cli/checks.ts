/** `meshdoctor checks [check]`: the catalog, or one check's documentation (shipped, no network). */
import { readFileSync } from 'node:fs';
import { EXIT, UserError } from '../util/errors.js';
import { docsBaseOf, type CommandContext } from './io.js';
import { addFlags, type OptionsOf } from './options.js';

export function checksCommand({ program, io, setExit }: CommandContext): void {
  addFlags(
    program
      .command('checks')
      .argument('[check]', 'a check id or code: print its documentation (shipped with meshdoctor, no network)')
      .description("list every check (id, code, default severity, title), or print one check's documentation"),
    'checks',
  ).action(async (which: string | undefined, o: OptionsOf<'checks'>) => {
    // The catalog only: listing the checks loads no check, model or mesh profile.
    const { CHECK_META: CHECKS } = await import('../checks/catalog.js');
    const { docsUrl } = await import('../checks/define.js');
    if (which !== undefined) {
      const c = CHECKS.find((x) => x.id === which.toLowerCase() || x.code.toLowerCase() === which.toLowerCase());
      if (!c) throw new UserError(`unknown check "${which}" (see: meshdoctor checks)`);
      let doc: string;
      try {
        doc = readFileSync(new URL(`../../docs/checks/${c.id}.md`, import.meta.url), 'utf8');
      } catch {
        throw new UserError(`the documentation of ${c.id} is not installed (docs/checks/${c.id}.md)`);
      }
      io.stdout(
        o.output === 'json'
          ? JSON.stringify({ id: c.id, code: c.code, severity: c.severity, title: c.title, description: c.description, inputs: [...c.inputs], doc }, null, 2) +
              '\n'
          : doc,
      );
      setExit(EXIT.OK);
      return;
    }
    const base = docsBaseOf(io);
    const rows = CHECKS.map((c) => ({
      id: c.id,
      code: c.code,
      severity: c.severity,
      title: c.title,
      description: c.description,
      inputs: [...c.inputs],
      ...(base ? { docsUrl: docsUrl(c.id, base) } : {}),
    }));
    if (o.output === 'json') io.stdout(JSON.stringify(rows, null, 2) + '\n');
    else {
      const w = Math.max(...rows.map((r) => r.id.length));
      io.stdout(
        ['CODE    SEVERITY  ' + 'ID'.padEnd(w) + '  TITLE', ...rows.map((r) => `${r.code}  ${r.severity.padEnd(8)}  ${r.id.padEnd(w)}  ${r.title}`)].join(
          '\n',
        ) + '\n',
      );
      io.stdout('\nDocumentation of one check: meshdoctor checks ID\n');
    }
    setExit(EXIT.OK);
  });
}
