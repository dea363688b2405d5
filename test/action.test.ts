/**
 * The composite GitHub Action (action.yml, docs/github-action.md): its inputs never reach a shell
 * as code, the upload runs after findings and after a failed run, and its check script, run here
 * with bash as the runner runs it (over the built bin/meshdoctor.js), writes the SARIF and the
 * outputs and exits with meshdoctor's code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
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
    sarif: existsSync(sarifPath) ? JSON.parse(readFileSync(sarifPath, 'utf8')) : undefined,
  };
}

describe('action.yml', () => {
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
      expect(r.stdout).toMatch(/^error: will-not-be-meshed: /m);
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
