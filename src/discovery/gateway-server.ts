import { serverAssigned } from './server-listeners';

/** `@nestjs/websockets`' GATEWAY_SERVER_METADATA (`@WebSocketServer()`), by value. */
const GATEWAY_SERVER_METADATA = 'websockets:is_socket';

/** The property Nest assigns each marked gateway's server to; a string, as Nest looks for it with for...in. */
const SERVER_PROPERTY = '__rateLimiterServer';

const servers = new WeakMap<object, unknown>();

/**
 * Asks Nest for a gateway's server as `@WebSocketServer()` does: a property marked on the
 * class, which Nest sets when it connects the gateway (before any lifecycle hook), here an
 * accessor that keeps the server aside so the gateway's own properties are untouched. It
 * must be marked while the providers are built, before Nest connects gateways.
 */
export function askForServer(gateway: Function): void {
  const prototype = gateway.prototype as object;
  if (Object.prototype.hasOwnProperty.call(prototype, SERVER_PROPERTY)) return;
  Object.defineProperty(prototype, SERVER_PROPERTY, {
    configurable: true,
    enumerable: true,
    get(this: object) {
      return servers.get(this);
    },
    set(this: object, server: unknown) {
      servers.set(this, server);
      serverAssigned(this, server);
    },
  });
  Reflect.defineMetadata(GATEWAY_SERVER_METADATA, true, prototype, SERVER_PROPERTY);
}

/** The server Nest gave the gateway instance (a socket.io Server or Namespace, or a ws server). */
export function serverOf(instance: object): unknown {
  return servers.get(instance);
}
