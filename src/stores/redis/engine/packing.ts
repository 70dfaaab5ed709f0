import type { EngineEntry, FixedFields } from './entry';
import { ReplyFields } from './reply-fields';

/**
 * Ends every field of a packed batch (engine.lua). No field holds it: the algorithms' own
 * fields are numbers, and the ids a request carries are refused with a NUL (zset members
 * use it to carry weights); a field that holds one anyway fails its entry (checkField).
 */
const END = '\0';

function packFields(fields: readonly string[]): string {
  let packed = '';
  for (const field of fields) packed += checkField(field) + END;
  return packed;
}

function checkField(field: string): string {
  if (field.includes(END)) {
    throw new TypeError(`an engine argument holds a NUL character: ${JSON.stringify(field)}`);
  }
  return field;
}

/**
 * An entry's argv as packed fields: the count of them, then each ended by NUL. Throws for a
 * field holding a NUL, so that only its own decision fails (called as it is added).
 */
export function packArgv(fixed: FixedFields, request: readonly string[] | undefined): string {
  if (!request || request.length === 0) {
    return (fixed.packedAlone ??= fixed.argv.length + END + packFields(fixed.argv));
  }
  let packed = (fixed.packedFields ??= packFields(fixed.argv));
  for (const field of request) packed += checkField(field) + END;
  return fixed.argv.length + request.length + END + packed;
}

/**
 * A batch's entries as one string (engine.lua's layout), not ~7 arguments per decision:
 * for each, its algorithm (`<index>/<size>` for the first member of a group), its time,
 * then its packed argv (packArgv), each field ended by NUL; or, for an entry that would
 * repeat the one before it (one limit's decisions on other keys), a single empty field, so
 * the engine reads a limit's fields once per run of its decisions.
 */
export function packEntries(
  entries: readonly EngineEntry[],
  starts: ReadonlyMap<number, number>,
): string {
  let packed = '';
  let previous: EngineEntry | undefined;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const size = starts.size > 0 ? starts.get(i) : undefined;
    if (size === undefined && previous !== undefined && repeats(entry, previous)) {
      packed += END;
    } else {
      const index = size === undefined ? entry.algorithmIndex : `${entry.algorithmIndex}/${size}`;
      packed += index + END + entry.time + END + entry.packedArgv!;
    }
    previous = entry;
  }
  return packed;
}

function repeats(entry: EngineEntry, previous: EngineEntry): boolean {
  return (
    entry.packedArgv === previous.packedArgv &&
    entry.algorithmIndex === previous.algorithmIndex &&
    entry.time === previous.time
  );
}

/**
 * The engine's packed reply (engine.lua) as the values the entries read: the Redis time in
 * µs (sent as TIME's two fields), then 5 values per entry (a failed entry's message as its
 * second). Undefined for a reply that is not `count` entries.
 */
export function unpackReply(reply: unknown, count: number): unknown[] | undefined {
  if (typeof reply !== 'string') return undefined;
  const values: unknown[] = new Array<unknown>(1 + 5 * count);
  const fields = new ReplyFields(reply);
  // Redis's TIME as it gave it: whole seconds, then µs (exact: below 2^53 µs).
  const seconds = fields.number(true);
  const micros = fields.number(true);
  if (seconds === undefined || micros === undefined) return undefined;
  values[0] = seconds * 1e6 + micros;
  for (let i = 0; i < count; i++) {
    const start = fields.at;
    const base = 1 + 5 * i;
    if (reply.startsWith('-2,', start)) {
      const stop = reply.indexOf(END, start);
      if (stop < 0) return undefined;
      values[base] = -2;
      values[base + 1] = reply.slice(start + 3, stop);
      values[base + 2] = values[base + 3] = values[base + 4] = 0;
      fields.at = stop + 1;
      continue;
    }
    for (let j = 0; j < 5; j++) {
      const value = fields.number(j === 4);
      if (value === undefined) return undefined;
      values[base + j] = value;
    }
  }
  return fields.at === reply.length ? values : undefined;
}
