/**
 * The house (docs/architecture.md): each layer imports only from the layers below it, and no
 * file of src/ takes part in an import cycle, value or type imports alike. Imports are read with
 * TypeScript's own pre-processor (static, `export ... from`, dynamic `import()`, `import type`).
 * A self-test feeds the gate a made-up graph with an upward import and a cycle, and it must fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The layers, bottom first. A file belongs to the first entry its path starts with. */
export const LAYERS: readonly (readonly [string, number])[] = [
  ['src/util/', 1],
  ['src/k8s/', 2],
  ['src/cluster/', 3],
  ['src/fix/', 3],
  ['src/mesh/', 4],
  ['src/facts/', 5],
  ['src/checks/', 6],
  ['src/run/', 7],
  ['src/report/', 8],
  // watch serves the reports (report/json) it keeps current
  ['src/watch/', 9],
  // the entry point src/cli.ts and its commands in src/cli/
  ['src/cli', 10],
];

const layerOf = (file: string) => LAYERS.find(([p]) => file === p || file.startsWith(p));

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every src file's imports of other src files (relative specifiers resolved to .ts paths). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files('src')) {
    const info = ts.preProcessFile(readFileSync(join(ROOT, f), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((i) => i.fileName)
      .filter((s) => s.startsWith('.'))
      .map((s) => normalize(join(dirname(f), s)).replace(/\.js$/, '.ts'));
    graph.set(f, [...new Set(targets)]);
  }
  return graph;
}

/** Imports that break the layering: into a higher layer, or sideways into another folder of the same rank. */
export function upward(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph) {
    const a = layerOf(from);
    for (const to of tos) {
      const b = layerOf(to);
      if (!a || !b) out.push(`${from} -> ${to}: a file outside every layer`);
      else if (a[0] !== b[0] && b[1] >= a[1])
        out.push(`${from} (${a[0]}, layer ${a[1]}) -> ${to} (${b[0]}, layer ${b[1]})`);
    }
  }
  return out.sort();
}

/** The import cycles: strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

describe('the layers of src/', () => {
  const graph = importGraph();

  it('every file of src/ is in a layer', () => {
    expect([...graph.keys()].filter((f) => !layerOf(f))).toEqual([]);
  });

  it('each layer imports only from the layers below it', () => {
    expect(upward(graph)).toEqual([]);
  });

  it('no import cycle (value or type imports)', () => {
    expect(cycles(graph).map((c) => c.map((f) => relative('src', f)).join(' -> '))).toEqual([]);
  });

  it('the gate fails on an upward import and on a cycle (self-test)', () => {
    const bad = new Map([
      ['src/k8s/a.ts', ['src/facts/b.ts']],
      ['src/facts/b.ts', ['src/k8s/a.ts']],
      ['src/cluster/c.ts', ['src/fix/d.ts']],
      ['src/fix/d.ts', []],
    ]);
    expect(upward(bad)).toEqual([
      'src/cluster/c.ts (src/cluster/, layer 3) -> src/fix/d.ts (src/fix/, layer 3)',
      'src/k8s/a.ts (src/k8s/, layer 2) -> src/facts/b.ts (src/facts/, layer 5)',
    ]);
    expect(cycles(bad)).toEqual([['src/facts/b.ts', 'src/k8s/a.ts']]);
  });
});
