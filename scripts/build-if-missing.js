// npm's prepare: a checkout without lib/ gets it built. That is how `npm install <git URL>`
// gets lib/ (npm clones the repository, installs its devDependencies and runs prepare; it
// runs no prepack there). A checkout that has lib/ is left alone: `npm test`, `npm pack` and
// `npm publish` build it anew themselves, and an install prints no build.
const { existsSync } = require('node:fs');
const { execSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
if (!existsSync(join(root, 'lib', 'index.js'))) {
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}
