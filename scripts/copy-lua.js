// tsc does not copy assets: put every algorithm's .lua next to its compiled model in lib/,
// then write lib/engine.lua, the engine script as RedisStore sends it, so it can be read.
const { cpSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

function copyLua(from, to) {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) copyLua(source, join(to, name));
    else if (name.endsWith('.lua')) cpSync(source, join(to, name));
  }
}
const lib = join(__dirname, '..', 'lib');
copyLua(join(__dirname, '..', 'src'), lib);
const { BUILT_IN_ENGINE } = require(join(lib, 'stores', 'engine', 'engine-script'));
writeFileSync(
  join(lib, 'engine.lua'),
  `-- The engine script RedisStore defines (src/stores/engine/engine-script.ts), composed at\n` +
    `-- build from the .lua files of src/: the same text the store composes when it starts.\n` +
    BUILT_IN_ENGINE.lua,
);
