/**
 * Honest inputs (issue 24 part 6): --mesh M reports on M alone and says when M is not installed;
 * a kubectl dump that lacks a kind has not collected it (never "not found"), and a dump that
 * proves it read a kind (a file named after it) holds "none" when it holds none.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { baseObjects, fixtureObjects, overlay } from './helpers/fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-honest-'));

function listFile(name: string, objects: unknown[]): string {
  const p = join(tmp, name);
  writeFileSync(p, JSON.stringify({ kind: 'List', apiVersion: 'v1', items: objects }));
  return p;
}

describe('--mesh M filters every finding', () => {
  // An Istio CronJob's Job hangs beside a healthy Kuma: job-never-completes judges pods, not webhooks.
  const hung = () =>
    listFile('istio-hung-beside-kuma.json', overlay(baseObjects('istio+kuma'), fixtureObjects('checks/job-never-completes/fires-istio-cronjob-hung.yaml')));

  it("--mesh kuma reports no Istio finding (Istio's hung Job included)", async () => {
    const f = hung();
    const all = JSON.parse((await runCli(['check', '-A', '--snapshot', f, '-o', 'json', '--fail-on', 'none'])).stdout);
    expect(all.findings.map((x: any) => `${x.id} ${x.mesh}`)).toContain('job-never-completes istio');
    const kuma = JSON.parse((await runCli(['check', '-A', '--snapshot', f, '-o', 'json', '--mesh', 'kuma', '--fail-on', 'none'])).stdout);
    expect(kuma.findings.filter((x: any) => x.mesh !== 'kuma')).toEqual([]);
    expect(kuma.meshesNotInstalled).toBeUndefined();
  });

  it('a mesh asked for but not installed is said in the header (and in -o json)', async () => {
    const f = listFile('linkerd-only.json', baseObjects('linkerd'));
    const head = async (mesh: string) => (await runCli(['check', '-A', '--snapshot', f, '--mesh', mesh], { env: { COLUMNS: '300' } })).stdout.split('\n')[0];
    expect(await head('consul')).toMatch(/ · meshes: consul \(asked for with --mesh, but not installed\)$/);
    const json = JSON.parse((await runCli(['check', '-A', '--snapshot', f, '--mesh', 'consul', '-o', 'json'])).stdout);
    expect(json.meshesNotInstalled).toEqual(['consul']);
    // Installed: nothing said.
    expect(await head('linkerd')).toMatch(/ · meshes: linkerd$/);
  });
});
