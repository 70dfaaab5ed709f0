const SPACE = 0x20;
const COMMA = 0x2c;

type Trust = (address: string, hop: number) => boolean;

/**
 * Whether `ip` on requests of this prototype is Express's own getter, by prototype (one per
 * app): found once, so an app or a middleware that defines its own `ip` keeps it.
 */
const expressGetterOn = new WeakMap<object, boolean>();

function isExpressIpGetter(prototype: object): boolean {
  let known = expressGetterOn.get(prototype);
  if (known === undefined) {
    known = false;
    for (let at: object | null = prototype; at !== null; at = Object.getPrototypeOf(at)) {
      const descriptor = Object.getOwnPropertyDescriptor(at, 'ip');
      if (descriptor === undefined) continue;
      // Express 4 and 5 alike: `proxyaddr(this, app.get('trust proxy fn'))`.
      const source = typeof descriptor.get === 'function' ? String(descriptor.get) : '';
      known = source.includes("'trust proxy fn'") && source.includes('proxyaddr(this, trust)');
      break;
    }
    expressGetterOn.set(prototype, known);
  }
  return known;
}

/**
 * What `request.ip` returns, for any request. On Express's own requests it is found here
 * rather than by Express's getter, which builds the address list of `proxy-addr` (an array
 * for the socket, another for the parsed `X-Forwarded-For`, a third joining them) on every
 * read: the same walk, with the app's own compiled `trust proxy` function, called with the
 * same addresses in the same order, so the answer is Express's whatever the setting.
 * Anything else (another framework, an `ip` of the app's own, a request Express's getter
 * would throw on) reads `request.ip` itself.
 */
export function requestIp(request: any): unknown {
  const prototype = Object.getPrototypeOf(request);
  if (prototype === null || Object.hasOwn(request, 'ip') || !isExpressIpGetter(prototype)) {
    return request.ip;
  }
  const trust: unknown = request.app?.get?.('trust proxy fn');
  const socket = request.socket ? request.socket : request.connection;
  const header: unknown = request.headers ? request.headers['x-forwarded-for'] || '' : undefined;
  if (typeof trust !== 'function' || !socket || typeof header !== 'string') return request.ip;
  return forwardedClient(socket.remoteAddress, header, trust as Trust);
}

/**
 * proxy-addr's answer: from the socket's address towards the client, the first address not
 * trusted (by its hop number), else the farthest one. `header` is read backwards, address by
 * address, as `forwarded` parses it (spaces around an address dropped, empty entries skipped).
 */
function forwardedClient(socketAddress: string | undefined, header: string, trust: Trust) {
  let candidate = socketAddress;
  let hop = 0;
  let end = header.length;
  let start = end;
  for (let i = header.length - 1; i >= 0; i--) {
    const code = header.charCodeAt(i);
    if (code === SPACE) {
      if (start === end) start = end = i;
    } else if (code === COMMA) {
      if (start !== end) {
        // Only an address with one beyond it is asked about, as proxy-addr asks.
        if (!trust(candidate as string, hop)) return candidate;
        candidate = header.substring(start, end);
        hop++;
      }
      start = end = i;
    } else {
      start = i;
    }
  }
  if (start !== end) {
    if (!trust(candidate as string, hop)) return candidate;
    candidate = header.substring(start, end);
  }
  return candidate;
}
