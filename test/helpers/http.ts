import { Agent, request as httpRequest } from 'node:http';
import { INestApplication, LoggerService } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Milliseconds from sending to the end of the response. */
  elapsedMs: number;
}

export interface HttpCall {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** A raw body, sent as is (with the content-type given in `headers`). */
  body?: string;
  /** Source address, e.g. 127.0.0.2, to act as another client. */
  localAddress?: string;
}

/** One HTTP request over a real socket. */
export function call(
  port: number,
  { method = 'GET', path, headers = {}, json, body, localAddress }: HttpCall,
): Promise<HttpReply> {
  const payload = json === undefined ? body : JSON.stringify(json);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress,
        agent: false,
        headers: json !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            elapsedMs: Date.now() - started,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export type Platform = 'express' | 'fastify';
export const PLATFORMS: Platform[] = ['express', 'fastify'];

/** Boots a module on a platform, listening on all IPv4 loopback addresses. */
export async function startApp(
  rootModule: any,
  platform: Platform,
  logger: LoggerService | false = false,
): Promise<{ app: INestApplication; port: number }> {
  const moduleRef = await Test.createTestingModule({ imports: [rootModule] }).compile();
  const app =
    platform === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger })
      : moduleRef.createNestApplication({ logger });
  await app.listen(0, '0.0.0.0');
  const address = app.getHttpServer().address();
  return { app, port: address.port };
}

/** `count` GETs with `concurrency` in flight over keep-alive sockets; returns status counts. */
export async function load(
  port: number,
  paths: (i: number) => string,
  count: number,
  concurrency = 50,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const path = paths(next++);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return Object.fromEntries(statuses);
}
