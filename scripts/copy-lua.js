// tsc does not copy assets: put every algorithm's .lua next to its compiled model in lib/.
const { cpSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

function copyLua(from, to) {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) copyLua(source, join(to, name));
    else if (name.endsWith('.lua')) cpSync(source, join(to, name));
  }
}
copyLua(join(__dirname, '..', 'src'), join(__dirname, '..', 'lib'));
