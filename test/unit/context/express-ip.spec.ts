import { requestIp } from '../../../src/context/express-ip';

// Express itself, as @nestjs/platform-express serves it: the reference for every answer.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express: () => any = require('express');

/** A request of `app` as Express makes it: its own prototype, a socket with an address. */
function requestOf(app: any, remoteAddress: string | undefined, forwardedFor?: string) {
  const headers: Record<string, string> = { host: 'example.test' };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  const request = Object.create(app.request);
  Object.assign(request, { headers, socket: { remoteAddress } });
  return request;
}

const TRUST_SETTINGS: [string, unknown][] = [
  ['off (the default)', undefined],
  ['false', false],
  ['true', true],
  ['one hop', 1],
  ['two hops', 2],
  ['loopback', 'loopback'],
  ['a comma-separated list', 'loopback, 10.0.0.0/8'],
  ['a list of names and subnets', ['uniquelocal', '127.0.0.1', '2001:db8::/32']],
  ['one address', '10.0.0.2'],
  ['an IPv4 netmask', '10.0.0.0/255.0.0.0'],
  ['a mapped IPv6 subnet', '::ffff:10.0.0.0/104'],
  ['a function', (address: string, hop: number) => address.startsWith('10.') || hop === 0],
];

const SOCKETS = ['127.0.0.1', '10.0.0.2', '203.0.113.9', '::1', '::ffff:10.0.0.2', '2001:db8::5'];

const FORWARDED_FOR: (string | undefined)[] = [
  undefined,
  '',
  '203.0.113.7',
  '203.0.113.7, 10.0.0.2',
  '198.51.100.1, 203.0.113.7, 10.0.0.3',
  '198.51.100.1,10.0.0.9,127.0.0.1',
  '  198.51.100.1 ,  , 10.0.0.4  ',
  ', , ,',
  '   ',
  'not an address, 10.0.0.5',
  'two words, 10.0.0.5',
  '2001:db8::7, ::ffff:10.0.0.8',
  '[2001:db8::7]:443, 10.0.0.8',
];

describe('requestIp on Express', () => {
  describe.each(TRUST_SETTINGS)('trust proxy %s', (_name, setting) => {
    const app = express();
    if (setting !== undefined) app.set('trust proxy', setting);

    it.each(SOCKETS.flatMap((socket) => FORWARDED_FOR.map((header) => [socket, header])))(
      'socket %p, X-Forwarded-For %p: what req.ip returns',
      (socket, header) => {
        const request = requestOf(app, socket, header);
        const expected = request.ip;
        expect(typeof expected).toBe('string');
        expect(requestIp(request)).toBe(expected);
      },
    );
  });

  it('finds the address without reading Express’s req.ip getter', () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    const read: string[] = [];
    const request = new Proxy(requestOf(app, '127.0.0.1', '203.0.113.7'), {
      get: (target, property, receiver) => {
        if (property === 'ip') read.push(property);
        return Reflect.get(target, property, receiver);
      },
    });
    expect(requestIp(request)).toBe('203.0.113.7');
    expect(read).toEqual([]);
  });

  it('gives a trust function the addresses Express gives it, in its order, and no more', () => {
    const calls: [string, number][] = [];
    const app = express();
    app.set('trust proxy', (address: string, hop: number) => {
      calls.push([address, hop]);
      return address !== '198.51.100.1';
    });
    const header = '192.0.2.1, 198.51.100.1 , 10.0.0.2,10.0.0.3';
    const request = requestOf(app, '127.0.0.1', header);
    expect(request.ip).toBe('198.51.100.1');
    const byExpress = calls.splice(0);
    expect(requestIp(request)).toBe('198.51.100.1');
    expect(calls).toEqual(byExpress);
    expect(calls).toEqual([
      ['127.0.0.1', 0],
      ['10.0.0.3', 1],
      ['10.0.0.2', 2],
      ['198.51.100.1', 3],
    ]);
  });

  it('asks a trust function nothing when there is no forwarded address, as Express does', () => {
    const asked: string[] = [];
    const app = express();
    app.set('trust proxy', (address: string) => asked.push(address) > 0);
    for (const header of [undefined, '', ' , ']) {
      expect(requestIp(requestOf(app, '127.0.0.1', header))).toBe('127.0.0.1');
    }
    expect(asked).toEqual([]);
  });

  it('follows a setting changed after the app started, and a mounted app’s inherited one', () => {
    const app = express();
    const request = requestOf(app, '127.0.0.1', '203.0.113.7');
    expect(requestIp(request)).toBe('127.0.0.1');
    app.set('trust proxy', 'loopback');
    expect(requestIp(request)).toBe('203.0.113.7');

    const parent = express();
    parent.set('trust proxy', true);
    const child = express();
    parent.use('/child', child);
    const mounted = requestOf(child, '127.0.0.1', '198.51.100.1, 203.0.113.7');
    expect(mounted.ip).toBe('198.51.100.1');
    expect(requestIp(mounted)).toBe('198.51.100.1');
  });

  it('answers undefined for a socket without an address, as Express does', () => {
    const request = requestOf(express(), undefined, '203.0.113.7');
    expect(request.ip).toBeUndefined();
    expect(requestIp(request)).toBeUndefined();
  });

  it('reads an ip the app defines itself, on the request or on its app’s prototype', () => {
    const own = requestOf(express(), '127.0.0.1');
    Object.defineProperty(own, 'ip', { value: '192.0.2.44' });
    expect(requestIp(own)).toBe('192.0.2.44');

    const app = express();
    Object.defineProperty(app.request, 'ip', { get: () => '192.0.2.45' });
    expect(requestIp(requestOf(app, '127.0.0.1'))).toBe('192.0.2.45');
  });

  it('reads ip as it is on a request of no Express app', () => {
    expect(requestIp({ ip: '192.0.2.46', headers: {} })).toBe('192.0.2.46');
    expect(requestIp(Object.create(null))).toBeUndefined();
    expect(requestIp({ headers: { 'x-forwarded-for': '203.0.113.7' } })).toBeUndefined();
  });
});
