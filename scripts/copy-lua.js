// tsc does not copy assets: put every .lua of src/ next to its compiled module in lib/, the
// engine library among them (lib/stores/redis/engine/library.generated.lua, the file that
// npm run engine:library composes): what the store loads, so it can be read.
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
