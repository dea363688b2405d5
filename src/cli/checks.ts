/** `meshdoctor checks [check]`: the catalog, or one check's documentation (shipped, no network). */
import { readFileSync } from 'node:fs';
import { EXIT, UserError } from '../util/errors.js';
import { docsBaseOf, widthOf, type CommandContext } from './io.js';
import { addFlags, type OptionsOf } from './options.js';

/**
 * A title after the columns before it (`indent` wide), word-wrapped so no line passes `width`; the
 * lines after the first start under the title, and a word longer than the room left is cut (the ID
 * column is as wide as the longest id, so a title may get little room: MutatingAdmissionWebhook
 * beside kubernetes-version-unsupported). Too narrow a terminal (under 12 columns left) gets it whole.
 */
function fit(title: string, width: number, indent: string): string {
  const room = width - indent.length;
  if (room < 12) return title;
  const lines: string[] = [];
  let line = '';
  const words = title
    .split(' ')
    .flatMap((w) => (w.length > room ? (w.match(new RegExp(`.{1,${room}}`, 'g')) ?? [w]) : [w]));
  for (const word of words) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${indent}`);
}

/** -o json or -o yaml of a value. */
async function machine(format: 'json' | 'yaml', value: unknown): Promise<string> {
  if (format === 'json') return JSON.stringify(value, null, 2) + '\n';
  const { toYaml } = await import('../report/yaml.js');
  return toYaml(value);
}

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
      const { namesCheck, unknownCheck } = await import('../checks/lookup.js');
      const c = CHECKS.find((x) => namesCheck(which, x));
      if (!c) throw new UserError(`${unknownCheck(which)} (see: meshdoctor checks)`);
      let doc: string;
      try {
        doc = readFileSync(new URL(`../../docs/checks/${c.id}.md`, import.meta.url), 'utf8');
      } catch {
        throw new UserError(`the documentation of ${c.id} is not installed (docs/checks/${c.id}.md)`);
      }
      // Which releases of each mesh the rule applies to, from the release tables (one check: the profiles load).
      const [{ PROFILE_LIST }, { releaseNotes }] = await Promise.all([
        import('../mesh/registry.js'),
        import('../run/release-notes.js'),
      ]);
      const releases = releaseNotes(c.id, PROFILE_LIST);
      const text = [
        '',
        "## Releases (generated from each mesh's release table, src/mesh/<mesh>/releases.ts)",
        '',
        ...releases.flatMap((r) => [`${r.mesh}: ${r.lines[0]}`, ...r.lines.slice(1).map((l) => `  - ${l}`)]),
      ].join('\n');
      io.stdout(
        o.output === 'json' || o.output === 'yaml'
          ? await machine(o.output, {
              id: c.id,
              code: c.code,
              severity: c.severity,
              title: c.title,
              description: c.description,
              inputs: [...c.inputs],
              doc,
              releases,
            })
          : `${doc.trimEnd()}\n${text}\n`,
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
    if (o.output === 'json' || o.output === 'yaml') io.stdout(await machine(o.output, rows));
    else {
      const w = Math.max(...rows.map((r) => r.id.length));
      // Titles wrap under their column on a terminal (or to $COLUMNS); piped, a check is one line to grep.
      const width = io.stdoutTTY || io.env.COLUMNS ? widthOf(io) : Infinity;
      const indent = ' '.repeat(`MD0000  ${'warning'.padEnd(8)}  ${''.padEnd(w)}  `.length);
      io.stdout(
        [
          'CODE    SEVERITY  ' + 'ID'.padEnd(w) + '  TITLE',
          ...rows.map((r) => `${r.code}  ${r.severity.padEnd(8)}  ${r.id.padEnd(w)}  ${fit(r.title, width, indent)}`),
        ].join('\n') + '\n',
      );
      io.stdout('\nDocumentation of one check: meshdoctor checks ID\n');
    }
    setExit(EXIT.OK);
  });
}
