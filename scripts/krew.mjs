// Builds the Krew release of meshdoctor: an archive holding what `npm pack` ships plus the runtime
// dependencies from the lockfile (without the optional Kubernetes client: docs/install.md), and
// the Krew plugin manifest naming it by URL and sha256, ready for a release and for krew-index.
//
//   node scripts/krew.mjs --base-url https://example.org/meshdoctor/releases/v0.1.0 [--out DIR]
//
// Writes DIR/meshdoctor-v<version>.tar.gz and DIR/meshdoctor.yaml (DIR: krew-out). Try it before
// publishing: kubectl krew install --manifest=DIR/meshdoctor.yaml --archive=DIR/meshdoctor-v<version>.tar.gz
// The archive is reproducible: sorted entries, fixed owner and times, gzip without a name or time.
//
// The manifest follows Krew's validation (kubernetes-sigs/krew pkg/index/validation/validate.go
// @a6a42b0d: apiVersion krew.googlecontainertools.github.com/v1alpha2, kind Plugin, a name
// matching ^[\w-]+$, a shortDescription, a semver version, per platform a uri, a sha256 of 64 hex
// digits, bin, from/to in files, a selector on os/arch only). Krew moves each match of a `files`
// glob into the install directory (internal/installation/move.go @6e7a20d1) and links `bin` as
// kubectl-meshdoctor on the PATH.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';

const ROOT = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const baseUrl = flag('--base-url');
const out = resolve(flag('--out') ?? 'krew-out');
if (!baseUrl || !/^https:\/\/[^\s]+$/.test(baseUrl)) {
  console.error('usage: node scripts/krew.mjs --base-url https://WHERE-THE-ARCHIVE-IS-PUBLISHED [--out DIR]');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const version = `v${pkg.version}`;
const archive = `meshdoctor-${version}.tar.gz`;

const work = mkdtempSync(join(tmpdir(), 'meshdoctor-krew-'));
try {
  // What npm pack ships (prepack builds dist/), unpacked as meshdoctor/.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--pack-destination', work, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).replace(/^[^[]*/, ''),
  );
  const stage = join(work, 'meshdoctor');
  mkdirSync(stage);
  execFileSync('tar', ['-xzf', join(work, packed[0].filename), '-C', stage, '--strip-components=1']);
  // The runtime dependencies exactly as locked, no install scripts.
  cpSync(join(ROOT, 'package-lock.json'), join(stage, 'package-lock.json'));
  execFileSync('npm', ['ci', '--omit=dev', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: stage,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  mkdirSync(out, { recursive: true });
  const tar = execFileSync(
    'tar',
    ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-cf', '-', 'meshdoctor'],
    {
      cwd: work,
      maxBuffer: 1 << 28,
    },
  );
  const gz = execFileSync('gzip', ['-n', '-9'], { input: tar, maxBuffer: 1 << 28 });
  writeFileSync(join(out, archive), gz);
  const sha256 = createHash('sha256').update(gz).digest('hex');

  const manifest = {
    apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
    kind: 'Plugin',
    metadata: { name: 'meshdoctor' },
    spec: {
      version,
      shortDescription: 'Explain why service-mesh sidecars were not injected',
      description: [
        'meshdoctor tells you why service-mesh sidecars (Linkerd, Istio, Kuma, Consul) were not',
        'injected into your pods, and how to fix it. It reads the cluster once (GET and LIST only),',
        'runs independent checks and prints ranked findings, each with its evidence and the exact',
        'kubectl command that fixes it.',
        '',
      ].join('\n'),
      caveats: [
        'meshdoctor runs on Node.js 20 or newer: `node` must be on your PATH.',
        '',
        'Completion of `kubectl meshdoctor <TAB>` (kubectl 1.26+) needs kubectl_complete-meshdoctor on',
        'your PATH, which krew does not link; once:',
        '  ln -s "${KREW_ROOT:-$HOME/.krew}/store/meshdoctor/' + version + '/bin/kubectl_complete-meshdoctor.js" \\',
        '    "${KREW_ROOT:-$HOME/.krew}/bin/kubectl_complete-meshdoctor"',
        '',
        'The optional @kubernetes/client-node is not included: a kubeconfig using an auth provider',
        'such as oidc, or a socks5 proxy, needs the npm package instead (docs/install.md).',
        '',
      ].join('\n'),
      platforms: [
        {
          selector: { matchExpressions: [{ key: 'os', operator: 'In', values: ['linux', 'darwin'] }] },
          uri: `${baseUrl.replace(/\/$/, '')}/${archive}`,
          sha256,
          files: [{ from: 'meshdoctor/*', to: '.' }],
          bin: 'bin/kubectl-meshdoctor.js',
        },
      ],
    },
  };
  writeFileSync(join(out, 'meshdoctor.yaml'), YAML.stringify(manifest, { lineWidth: 0 }));
  console.error(`krew: ${join(out, archive)} (sha256 ${sha256}) and ${join(out, 'meshdoctor.yaml')}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
