/**
 * The composite GitHub Action (action.yml, docs/github-action.md): its inputs never reach a shell
 * as code, the upload runs after findings and after a failed run, and its check script, run here
 * with bash as the runner runs it (over the built bin/meshdoctor.js), writes the SARIF and the
 * outputs and exits with meshdoctor's code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { githubSarifProblems } from './helpers/sarif-github.js';

const ROOT = join(import.meta.dirname, '..');
const action = YAML.parse(readFileSync(join(ROOT, 'action.yml'), 'utf8'));
const steps: any[] = action.runs.steps;
const check = steps.find((s) => s.id === 'check');
const BUILT = existsSync(join(ROOT, 'dist/cli.js'));

/** The check step as the runner runs it: `${{ inputs.X }}` in its env from `inputs` over the defaults, in a fresh workspace. */
function runStep(inputs: Record<string, string>) {
  const workspace = mkdtempSync(join(tmpdir(), 'meshdoctor-action-'));
  const value = (expr: string) =>
    expr.replace(
      /\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g,
      (_, name: string) => inputs[name] ?? action.inputs[name].default ?? '',
    );
  const env: Record<string, string> = {
    PATH: process.env.PATH!,
    HOME: workspace,
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_OUTPUT: join(workspace, 'output'),
    GITHUB_STEP_SUMMARY: join(workspace, 'summary.md'),
    // The install step's GITHUB_ENV line; here the checkout's built CLI stands for the published package.
    MD_BIN: join(ROOT, 'bin/meshdoctor.js'),
  };
  for (const [k, v] of Object.entries(check.env as Record<string, string>)) env[k] = value(v);
  const r = spawnSync('bash', ['-e', '-c', check.run], { cwd: workspace, env, encoding: 'utf8' });
  const outputs = existsSync(env.GITHUB_OUTPUT!)
    ? Object.fromEntries(
        readFileSync(env.GITHUB_OUTPUT!, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split('=', 2)),
      )
    : {};
  const sarifPath = join(workspace, env.MD_SARIF!);
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    outputs,
    workspace,
    summary: existsSync(env.GITHUB_STEP_SUMMARY!) ? readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8') : undefined,
    sarif: existsSync(sarifPath) ? JSON.parse(readFileSync(sarifPath, 'utf8')) : undefined,
  };
}

describe('action.yml', () => {
  it('installs the published package (runtime dependencies only, no npm ci of the dev dependencies, no build)', () => {
    const install = steps.find((s) => String(s.name).startsWith('Install meshdoctor'));
    expect(install.run).toContain('npm install -g --prefix "$prefix"');
    expect(install.run).toContain('"meshdoctor@$MD_VERSION"');
    for (const s of steps) {
      expect(String(s.run ?? '')).not.toMatch(/npm ci|npm run/);
    }
    expect(action.inputs.version.default).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });

  it('the SARIF upload waits for the availability probe and is skipped, with a notice, where code scanning is not available', () => {
    const probe = steps.find((s) => s.id === 'scanning');
    const upload = steps.find((s) => String(s.uses).startsWith('github/codeql-action/upload-sarif@'));
    expect(upload.if).toContain("steps.scanning.outputs.available == 'true'");
    expect(probe.if).toBe("always() && inputs.upload == 'true'");
    // The probe, run with a stand-in curl: 403 (no Advanced Security) -> skipped with a notice; 404 "no analysis found" -> available.
    const cases: [string, string, string][] = [
      ['403', '{"message":"Advanced Security must be enabled for this repository to use code scanning."}', 'false'],
      ['404', '{"message":"no analysis found"}', 'true'],
      ['404', '{"message":"Code scanning is not enabled for this repository"}', 'false'],
      ['200', '[]', 'true'],
    ];
    for (const [status, body, available] of cases) {
      const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-probe-'));
      writeFileSync(
        join(dir, 'curl'),
        `#!/bin/bash\nwhile [ $# -gt 0 ]; do if [ "$1" = -o ]; then printf '%s' '${body}' > "$2"; fi; shift; done\nprintf ${status}\n`,
        { mode: 0o755 },
      );
      const env = {
        PATH: `${dir}:${process.env.PATH}`,
        RUNNER_TEMP: dir,
        GITHUB_OUTPUT: join(dir, 'out'),
        GITHUB_REPOSITORY: 'o/r',
        MD_TOKEN: 't',
      };
      const r = spawnSync('bash', ['-e', '-c', probe.run], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(readFileSync(env.GITHUB_OUTPUT, 'utf8'), `${status} ${body}`).toBe(`available=${available}\n`);
      if (available === 'false')
        expect(r.stdout).toMatch(/^::notice title=meshdoctor::code scanning is not available/m);
    }
  });

  it('inputs reach scripts through the environment only; the upload runs after findings and failures', () => {
    for (const s of steps) if (s.run) expect(s.run, s.name).not.toContain('${{');
    const upload = steps.find((s) => String(s.uses).startsWith('github/codeql-action/upload-sarif@'));
    expect(upload.if).toMatch(/^always\(\) && /);
    expect(upload.with).toEqual({ sarif_file: '${{ inputs.sarif-file }}', category: '${{ inputs.category }}' });
    // Every input is documented, and the page documents every input.
    const doc = readFileSync(join(ROOT, 'docs/github-action.md'), 'utf8');
    for (const [name, spec] of Object.entries<any>(action.inputs)) {
      expect(spec.description, name).toBeTruthy();
      expect(doc, name).toContain(`| \`${name}\` |`);
    }
  });

  it.skipIf(!BUILT)(
    'check -f on manifests: SARIF written and valid for GitHub, findings in the log, exit 1 passed on',
    () => {
      const r = runStep({
        manifests: join(ROOT, 'test/fixtures/manifests/helm-shop.yaml'),
        snapshot: join(ROOT, 'test/fixtures/healthy/linkerd.yaml'),
        namespace: 'legacy',
        'expect-meshed': 'true',
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.outputs).toEqual({ 'sarif-file': 'meshdoctor.sarif', 'exit-code': '1' });
      expect(githubSarifProblems(r.sarif)).toEqual([]);
      expect(r.sarif.runs[0].results.map((x: any) => x.ruleId)).toContain('will-not-be-meshed');
      // With check -f: an annotation on the manifest object's file and line.
      const file = join(ROOT, 'test/fixtures/manifests/helm-shop.yaml');
      const uri = r.sarif.runs[0].results.find((x: any) => x.ruleId === 'will-not-be-meshed').locations[0]
        .physicalLocation;
      expect(r.stdout).toContain(
        `::error file=${uri.artifactLocation.uri.replace(/:/g, '%3A').replace(/,/g, '%2C')},line=${uri.region.startLine},title=will-not-be-meshed::`,
      );
      // That line starts the Deployment orders of the file (its apiVersion line, the document's first).
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines[uri.region.startLine - 1]).toBe('apiVersion: apps/v1');
      expect(lines.slice(uri.region.startLine - 1, uri.region.startLine + 3)).toContain('  name: orders');
      // The markdown report in the job summary.
      expect(r.summary).toMatch(/will-not-be-meshed/);
      expect(r.summary).toMatch(/^#/m);
    },
  );

  it.skipIf(!BUILT)('a failed run still leaves the SARIF (executionSuccessful false) and exits 2', () => {
    const r = runStep({ snapshot: 'no-such-snapshot.json', 'all-namespaces': 'true' });
    expect(r.code).toBe(2);
    expect(r.outputs['exit-code']).toBe('2');
    expect(r.sarif.runs[0].invocations[0].executionSuccessful).toBe(false);
    expect(r.stderr).toMatch(/^meshdoctor: cannot read snapshot/m);
  });

  it.skipIf(!BUILT)('hostile inputs are arguments, never code: no substitution, no second command, no globbing', () => {
    const r = runStep({
      snapshot: join(ROOT, 'test/fixtures/healthy/linkerd.yaml'),
      namespace: 'x"; touch pwned-ns; "',
      args: '--only $(touch${IFS}pwned-sub) ;touch pwned-semi `touch pwned-tick` *',
    });
    expect(r.code).toBe(2);
    expect(readdirSync(r.workspace).filter((f) => f.startsWith('pwned'))).toEqual([]);
    expect(r.stderr).toMatch(/^meshdoctor: /m);
  });
});
