import { Readable } from 'node:stream';
import { Controller, Get, Res, StreamableFile } from '@nestjs/common';
import { ConcurrencyLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { eventually } from '../helpers/eventually';
import { download, hangUp, pause } from '../helpers/hang-up';
import { call, PLATFORMS } from '../helpers/http';

const HANDLER_MS = 800;

/** A body of `chunks` chunks, one every 100 ms. */
function slowBody(chunks = 6): Readable {
  let sent = 0;
  return new Readable({
    read() {
      setTimeout(() => this.push(sent++ < chunks ? `chunk ${sent}\n` : null), 100);
    },
  });
}

const work = { started: 0, inFlight: 0, peak: 0 };

@Controller('work')
class WorkController {
  @Get('slow')
  @ConcurrencyLimit({ key: 'slow', max: 1 })
  async slow() {
    work.started++;
    work.peak = Math.max(work.peak, ++work.inFlight);
    await pause(HANDLER_MS);
    work.inFlight--;
    return 'done';
  }

  @Get('file')
  @ConcurrencyLimit({ key: 'file', max: 1 })
  file() {
    return new StreamableFile(slowBody());
  }

  @Get('piped')
  @ConcurrencyLimit({ key: 'piped', max: 1 })
  piped(@Res() response: any) {
    // Express hands over its response, Fastify its reply: both stream into Node's response.
    const raw = response.raw ?? response;
    raw.writeHead(200, { 'content-type': 'text/plain' });
    slowBody().pipe(raw);
  }
}

describe.each(PLATFORMS)(
  '@ConcurrencyLimit holds its slot while the work runs, on %s',
  (platform) => {
    const env = useAppOnRedis([WorkController], platform);
    const inFlight = (name: string) => env.admin.zcard(`concurrency:${name}`);

    afterEach(async () => {
      await eventually(() => inFlight('slow'), 0, 3000);
      await env.admin.flushall();
      Object.assign(work, { started: 0, inFlight: 0, peak: 0 });
    });

    it('clients that hang up 100 ms after sending start one handler, not one each', async () => {
      for (let i = 0; i < 5; i++) await hangUp(env.port, '/work/slow', 100);
      expect([work.started, work.peak]).toEqual([1, 1]);
      expect(await inFlight('slow')).toBe(1);
      // The slot is given back when the handler settles, though its client left long before.
      expect(await eventually(() => inFlight('slow'), 0, HANDLER_MS + 500)).toBe(0);
      expect(work.inFlight).toBe(0);
      expect((await call(env.port, { path: '/work/slow' })).status).toBe(200);
      expect(work.started).toBe(2);
    });

    it.each(['file', 'piped'])(
      'a %s download holds its slot until its response ends',
      async (name) => {
        const first = download(env.port, `/work/${name}`);
        await first.firstBytes;
        const denied = await call(env.port, { path: `/work/${name}` });
        expect(denied.status).toBe(429);
        // A concurrency slot frees whenever a request ends: a short hint, not the 60 s lease.
        expect([denied.headers['retry-after'], denied.body.retryAfter]).toEqual(['1', 1]);
        expect(await inFlight(name)).toBe(1);
        expect(await first.ended).toBe(200);
        expect(await eventually(() => inFlight(name), 0)).toBe(0);
        const second = download(env.port, `/work/${name}`);
        expect(await second.ended).toBe(200);
      },
    );

    it.each(['file', 'piped'])(
      'a %s download whose client leaves gives its slot back at once',
      async (name) => {
        const first = download(env.port, `/work/${name}`);
        await first.firstBytes;
        expect(await inFlight(name)).toBe(1);
        first.abort();
        expect(await eventually(() => inFlight(name), 0, 300)).toBe(0);
        await pause(700); // the abandoned body's timers run out
      },
    );
  },
);
