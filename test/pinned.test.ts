/**
 * What users run names nothing that can move (issue 36 class 13): a tag (`node:20-slim`,
 * `actions/setup-node@v4`) is a name its owner can point at other content at any time; a digest or
 * a commit SHA names exactly one. Every base image of the Dockerfile, every action the composite
 * action and the workflows use, and every image of deploy/ is pinned: an image by `@sha256:`, an
 * action by a full 40-hex commit with its tag in a comment beside it. deploy/'s placeholder image is
 * on the `.invalid` domain (RFC 2606: no registry can ever answer for it), replaced by the user's
 * own digest before it runs (docs/in-cluster.md).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

const ROOT = join(import.meta.dirname, '..');
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

/** Why an image reference can move (undefined: pinned by digest, or a name no registry can answer for). */
function imageProblem(ref: string): string | undefined {
  if (/@sha256:[0-9a-f]{64}$/.test(ref)) return undefined;
  const host = ref.includes('/') ? ref.split('/')[0]! : '';
  if (/\.invalid(:\d+)?$/.test(host)) return undefined;
  return `${ref} is not pinned by digest (@sha256:...)`;
}

/** Why a `uses:` line can move: an action by tag or branch, or a commit without the tag it was in a comment. */
function usesProblem(line: string): string | undefined {
  const m = /^\s*-?\s*uses:\s*(\S+)\s*(#.*)?$/.exec(line);
  if (!m) return undefined;
  const [, ref, comment] = m;
  if (ref!.startsWith('./')) return undefined; // an action of this repository: the same commit
  if (ref!.startsWith('docker://')) return imageProblem(ref!.slice('docker://'.length));
  if (!/@[0-9a-f]{40}$/.test(ref!)) return `${ref} is not pinned to a commit`;
  if (!/#\s*v\d/.test(comment ?? '')) return `${ref} has no tag in a comment beside it`;
  return undefined;
}

/** The base images of a Dockerfile's FROM lines, ARG defaults substituted; stage names left out. */
function baseImages(dockerfile: string): string[] {
  const args = new Map<string, string>();
  const stages = new Set<string>();
  const out: string[] = [];
  for (const line of dockerfile.split('\n')) {
    const arg = /^ARG\s+(\w+)=(\S+)/.exec(line);
    if (arg) args.set(arg[1]!, arg[2]!);
    const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (!from) continue;
    const image = from[1]!.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args.get(a ?? b) ?? '');
    if (!stages.has(image) && image !== 'scratch') out.push(image);
    if (from[2]) stages.add(from[2]);
  }
  return out;
}

/** Every `image:` of the YAML documents of a file. */
function images(text: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'image' && typeof x === 'string') out.push(x);
        else walk(x);
      }
  };
  for (const d of YAML.parseAllDocuments(text)) walk(d.toJS());
  return out;
}

const workflows = existsSync(join(ROOT, '.github/workflows'))
  ? readdirSync(join(ROOT, '.github/workflows'))
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => `.github/workflows/${f}`)
  : [];

describe('what users run is pinned', () => {
  it('the checks refuse what can move and accept what cannot', () => {
    expect(imageProblem('node:20-slim')).toBeDefined();
    expect(imageProblem('node:20-slim@sha256:abc')).toBeDefined();
    expect(imageProblem(`node:20-slim@sha256:${'a'.repeat(64)}`)).toBeUndefined();
    expect(imageProblem('registry.example.com/meshdoctor:0.1.0')).toBeDefined();
    expect(imageProblem('meshdoctor.invalid/meshdoctor:0.1.0')).toBeUndefined();
    expect(usesProblem('    - uses: actions/setup-node@v4')).toBeDefined();
    expect(usesProblem('      uses: github/codeql-action/upload-sarif@main')).toBeDefined();
    expect(usesProblem(`    - uses: actions/setup-node@${'4'.repeat(40)}`)).toBeDefined(); // no tag beside it
    expect(usesProblem(`    - uses: actions/setup-node@${'4'.repeat(40)} # v4.4.0`)).toBeUndefined();
    expect(usesProblem('    - uses: ./local-action')).toBeUndefined();
    expect(usesProblem('    - uses: docker://alpine:3')).toBeDefined();
    expect(baseImages('ARG B=node:20\nFROM ${B} AS build\nFROM build\nFROM scratch\nFROM $B')).toEqual([
      'node:20',
      'node:20',
    ]);
  });

  it('the Dockerfile: every base image by digest', () => {
    const found = baseImages(read('Dockerfile'));
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(found.map(imageProblem).filter(Boolean)).toEqual([]);
  });

  it('action.yml and .github/workflows: every action by commit, its tag in a comment', () => {
    const files = ['action.yml', ...workflows];
    const problems: string[] = [];
    let uses = 0;
    for (const f of files)
      for (const line of read(f).split('\n')) {
        if (/^\s*-?\s*uses:/.test(line)) uses++;
        const p = usesProblem(line);
        if (p) problems.push(`${f}: ${p}`);
      }
    expect(uses).toBeGreaterThanOrEqual(2);
    expect(problems).toEqual([]);
  });

  it('deploy/: every image by digest (or the .invalid placeholder replaced before use)', () => {
    const found = readdirSync(join(ROOT, 'deploy'), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.ya?ml$/.test(f))
      .flatMap((f) => images(read(join('deploy', f))));
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(found.map(imageProblem).filter(Boolean)).toEqual([]);
  });
});
