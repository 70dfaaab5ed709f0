import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer, connect, Socket } from 'node:net';
import { join } from 'node:path';
import { clusterSlot } from '../../src/stores/redis/engine/cluster-slot';

/** What the emulated endpoint refuses, as managed endpoints and proxies do. */
export interface ProxyRules {
  /** EVAL/EVALSHA/FCALL whose declared keys hash to different slots (a proxy, ElastiCache Serverless). */
  crossSlotScripts?: boolean;
  /** Scripts that start with a `#!lua flags=` line, and FUNCTION LOAD with flags (Dragonfly, Redis 6). */
  scriptFlags?: boolean;
  /** CONFIG (ElastiCache, MemoryDB, Azure, Upstash rename or refuse it). */
  config?: boolean;
}

export interface RespProxy {
  port: number;
  url: string;
  /** How many commands each rule refused. */
  refused: Record<keyof ProxyRules, number>;
  /** Closes every client's connection, as an endpoint that restarts: clients reconnect. */
  dropConnections(): void;
  close(): Promise<void>;
}

const ERROR_REPLY = readFileSync(join(__dirname, '../fixtures/error-reply.lua'), 'utf8');

const CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
/** How Redis 6 answers a script with a shebang line. */
const FLAGS =
  "ERR Error compiling script (new function): user_script:1: unexpected symbol near '#'";

function resp(args: string[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
  return Buffer.from(parts.join(''));
}

/** One command from the head of `buffer`: its arguments and its length, or undefined if partial. */
function parseCommand(buffer: Buffer): { args: Buffer[]; length: number } | undefined {
  const lineEnd = (from: number) => {
    const at = buffer.indexOf('\r\n', from);
    return at < 0 ? undefined : at;
  };
  let end = lineEnd(0);
  if (end === undefined) return undefined;
  if (buffer[0] !== 0x2a /* '*' */) return { args: [], length: end + 2 }; // inline: as is
  const count = Number(buffer.subarray(1, end).toString());
  const args: Buffer[] = [];
  let pos = end + 2;
  for (let i = 0; i < count; i++) {
    end = lineEnd(pos);
    if (end === undefined) return undefined;
    const size = Number(buffer.subarray(pos + 1, end).toString());
    const start = end + 2;
    if (buffer.length < start + size + 2) return undefined;
    args.push(buffer.subarray(start, start + size));
    pos = start + size + 2;
  }
  return { args, length: pos };
}

/**
 * A Redis endpoint that refuses what some managed ones refuse, in front of a real
 * redis-server on loopback: it reads each command a client sends and forwards it byte for
 * byte, or, for a command its rules refuse, has Redis answer the endpoint's error in its place
 * (so every reply keeps its order). Replies go back untouched.
 */
export async function startRespProxy(redisPort: number, rules: ProxyRules): Promise<RespProxy> {
  const refused: RespProxy['refused'] = { crossSlotScripts: 0, scriptFlags: 0, config: 0 };
  /** Scripts refused for their flags, by SHA1: EVALSHA of them is refused too. */
  const flaggedShas = new Set<string>();
  const sockets = new Set<Socket>();

  const refusal = (args: Buffer[]): [keyof ProxyRules, string] | undefined => {
    const name = args[0]?.toString().toUpperCase();
    const text = (i: number) => args[i]?.toString() ?? '';
    if (rules.config && name === 'CONFIG') {
      return ['config', `ERR unknown command 'CONFIG', with args beginning with: '${text(1)}'`];
    }
    const isScript = name === 'EVAL' || name === 'EVAL_RO';
    const body = isScript ? text(1) : name === 'SCRIPT' || name === 'FUNCTION' ? text(2) : '';
    if (rules.scriptFlags) {
      const flagged =
        /^#!lua[^\n]*flags=/.test(body) || (name === 'FUNCTION' && /flags\s*=/.test(body));
      if (flagged) flaggedShas.add(createHash('sha1').update(body).digest('hex'));
      const sha = name === 'EVALSHA' || name === 'EVALSHA_RO' ? text(1).toLowerCase() : '';
      if (flagged || flaggedShas.has(sha)) return ['scriptFlags', FLAGS];
    }
    if (rules.crossSlotScripts && (isScript || /^(EVALSHA|FCALL)(_RO)?$/.test(name))) {
      const keys = args.slice(3, 3 + Number(text(2))).map((key) => clusterSlot(key.toString()));
      if (new Set(keys).size > 1) return ['crossSlotScripts', CROSSSLOT];
    }
    return undefined;
  };

  const server = createServer((client) => {
    const redis = connect({ port: redisPort, host: '127.0.0.1' });
    sockets.add(client).add(redis);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (let parsed = parseCommand(pending); parsed; parsed = parseCommand(pending)) {
        const found = refusal(parsed.args);
        if (found) refused[found[0]]++;
        redis.write(
          found ? resp(['EVAL', ERROR_REPLY, '0', found[1]]) : pending.subarray(0, parsed.length),
        );
        pending = pending.subarray(parsed.length);
      }
    });
    redis.on('data', (chunk) => client.write(chunk));
    const close = () => {
      client.destroy();
      redis.destroy();
      sockets.delete(client);
      sockets.delete(redis);
    };
    for (const socket of [client, redis]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    refused,
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
