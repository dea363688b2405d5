// Writes the released image, by digest, into deploy/: every `image:` of deploy/cronjob.yaml and
// deploy/watch.yaml that names meshdoctor (the placeholder meshdoctor.invalid/meshdoctor:VERSION
// or an earlier REGISTRY/meshdoctor@sha256:...) becomes IMAGE@sha256:DIGEST. Run by
// .github/workflows/release.yml after the image is pushed; refuses anything but a digest.
//
//   node scripts/pin-image.mjs ghcr.io/OWNER/meshdoctor@sha256:<64 hex> [DIR]   (DIR: deploy)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [ref, dirArg] = process.argv.slice(2);
const m = /^([a-z0-9][a-z0-9._\-/:]*[a-z0-9])@sha256:([0-9a-f]{64})$/.exec(ref ?? '');
if (!m || /\/\//.test(ref)) {
  console.error('usage: node scripts/pin-image.mjs REGISTRY/NAME@sha256:<64 hex digits> [DIR]');
  process.exit(2);
}
const dir = resolve(dirArg ?? join(import.meta.dirname, '..', 'deploy'));
let pinned = 0;
for (const file of ['cronjob.yaml', 'watch.yaml']) {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(/^(\s*image:\s*)\S*meshdoctor\S*$/gm, (_all, lead) => {
    pinned++;
    return `${lead}${ref}`;
  });
  writeFileSync(path, next);
}
if (pinned !== 2) {
  console.error(`pin-image: expected 2 meshdoctor images in deploy/, found ${pinned}`);
  process.exit(1);
}
console.log(`pin-image: deploy/cronjob.yaml and deploy/watch.yaml now run ${ref}`);
