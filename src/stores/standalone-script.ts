import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const prelude = readFileSync(join(__dirname, '..', 'algorithms', 'prelude.lua'), 'utf8');

/**
 * One algorithm's Lua (the body of `function(key, now, argv)`) as a script of its own:
 * KEYS[1] is the key, ARGV[1] the time in µs or '' for Redis TIME, and the rest its argv.
 * The per-tick engine composes the same bodies into one script; until a store runs the
 * engine, each algorithm runs as this script.
 */
export function standaloneScript(body: string): string {
  return `${prelude}
local argv = {}
for i = 2, #ARGV do
  argv[i - 1] = ARGV[i]
end
local function run(key, now, argv)
${body}
end
return run(KEYS[1], now_micros(), argv)
`;
}
