// npm pack and npm publish (prepack, postpack): the package.json that ships holds only what
// an app that installs the package reads. Scripts would run, or be warned about, on every
// install, and devDependencies and overrides are this repository's own. `strip` keeps the
// original beside it and `restore` puts it back; a strip that finds a kept original restores
// it first, so an interrupted pack never ships or keeps a stripped manifest as the source.
const { existsSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const MANIFEST = join(__dirname, '..', 'package.json');
const KEPT = join(__dirname, '..', '.package.json.packing');
/** What a consumer's npm, Node, TypeScript and bundler read. */
const SHIPPED_FIELDS = [
  'name',
  'version',
  'description',
  'license',
  'author',
  'repository',
  'bugs',
  'homepage',
  'keywords',
  'type',
  'main',
  'types',
  'exports',
  'typesVersions',
  'files',
  'engines',
  'peerDependencies',
  'peerDependenciesMeta',
  'dependencies',
  'optionalDependencies',
];

function restore() {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

function strip() {
  restore();
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text);
  const shipped = Object.fromEntries(
    SHIPPED_FIELDS.filter((field) => field in manifest).map((field) => [field, manifest[field]]),
  );
  writeFileSync(KEPT, text);
  writeFileSync(MANIFEST, `${JSON.stringify(shipped, null, 2)}\n`);
}

const command = process.argv[2];
if (command === 'strip') strip();
else if (command === 'restore') restore();
else {
  console.error('usage: node scripts/pack-manifest.js strip|restore');
  process.exit(1);
}
