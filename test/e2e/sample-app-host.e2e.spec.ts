import { get } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { bootstrap } from '../../sample-app/src/main';

/** The status of a GET to host:port, or the connection's error code. */
function statusAt(host: string, port: number, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    get({ host, port, path, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('the sample app', () => {
  let app: INestApplication | undefined;
  beforeAll(() => void jest.spyOn(console, 'log').mockImplementation(() => undefined));
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  afterAll(() => jest.restoreAllMocks());

  it('listens on HOST and PORT', async () => {
    app = await bootstrap({ HOST: '127.0.0.2', PORT: '0' }, { logger: false });
    const address = app.getHttpServer().address();
    expect(address.address).toBe('127.0.0.2');
    expect(await statusAt('127.0.0.2', address.port, '/limiter/rate')).toBe(200);
    // Only there.
    expect(await statusAt('127.0.0.1', address.port, '/limiter/rate')).toBe('ECONNREFUSED');
    expect(console.log).toHaveBeenCalledWith(expect.stringContaining('http://127.0.0.2:'));
  });

  it('listens on every interface without HOST', async () => {
    app = await bootstrap({ PORT: '0' }, { logger: false });
    expect(['::', '0.0.0.0']).toContain(app.getHttpServer().address().address);
  });
});
