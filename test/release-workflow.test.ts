/**
 * .github/workflows/release.yml (issue 35 item 1): on a version tag it tests Node 20, 22 and 24,
 * publishes the npm package, pushes the image and pins its digest into deploy/
 * (scripts/pin-image.mjs, run here on a copy), builds the Krew manifest with the existing
 * scripts/krew.mjs, and attaches them to the release. Nothing here talks to a registry.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { parseObjects } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const wf = YAML.parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8'));
const run = promisify(execFile);
const steps = (job: string) => wf.jobs[job].steps as { run?: string; uses?: string; with?: any }[];

describe('the release workflow', () => {
  it('runs on version tags; tests on Node 20, 22 and 24 before anything is published', () => {
    expect(wf.on.push.tags).toEqual(['v*.*.*']);
    expect(wf.jobs.test.strategy.matrix.node).toEqual([20, 22, 24]);
    expect(wf.jobs.npm.needs).toBe('test');
    expect(wf.jobs.image.needs).toBe('test');
    expect(steps('test').some((s) => s.run?.includes('test/slow/install.test.ts'))).toBe(true);
    expect(wf.permissions).toEqual({ contents: 'read' });
  });

  it('publishes the npm package with provenance, the image by digest, deploy/ pinned, the Krew manifest from scripts/krew.mjs', () => {
    expect(steps('npm').some((s) => s.run === 'npm publish --provenance --access public')).toBe(true);
    const image = steps('image');
    const build = image.find((s) => s.uses?.startsWith('docker/build-push-action'))!;
    expect(build.with.push).toBe(true);
    const pin = image.find((s) => s.run?.includes('scripts/pin-image.mjs'))!;
    expect(pin.run).toContain('@${{ steps.build.outputs.digest }}');
    expect(image.findIndex((s) => s === pin)).toBeGreaterThan(image.findIndex((s) => s === build));
    expect(image.some((s) => s.run?.startsWith('node scripts/krew.mjs --base-url'))).toBe(true);
    for (const s of [...steps('test'), ...steps('npm'), ...image])
      for (const m of (s.run ?? '').matchAll(/node (scripts\/\S+)/g))
        expect(existsSync(join(ROOT, m[1]!)), m[1]).toBe(true);
  });

  it('scripts/pin-image.mjs writes the image by digest into both deploy files, and refuses a tag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-pin-'));
    cpSync(join(ROOT, 'deploy'), dir, { recursive: true });
    const ref = `ghcr.io/example/meshdoctor@sha256:${'a'.repeat(64)}`;
    await run(process.execPath, [join(ROOT, 'scripts/pin-image.mjs'), ref, dir]);
    const images = ['cronjob.yaml', 'watch.yaml'].flatMap((f) =>
      (parseObjects(readFileSync(join(dir, f), 'utf8')) as any[])
        .filter((o) => o.kind === 'CronJob' || o.kind === 'Deployment')
        .map(
          (o) => (o.kind === 'CronJob' ? o.spec.jobTemplate.spec.template : o.spec.template).spec.containers[0].image,
        ),
    );
    expect(images).toEqual([ref, ref]);
    // Pinned again (the next release): replaced, not appended.
    const next = `ghcr.io/example/meshdoctor@sha256:${'b'.repeat(64)}`;
    await run(process.execPath, [join(ROOT, 'scripts/pin-image.mjs'), next, dir]);
    expect(readFileSync(join(dir, 'watch.yaml'), 'utf8')).toContain(`image: ${next}\n`);
    await expect(
      run(process.execPath, [join(ROOT, 'scripts/pin-image.mjs'), 'ghcr.io/example/meshdoctor:0.1.0', dir]),
    ).rejects.toMatchObject({ code: 2 });
  });
});
