/** Told of a gateway instance and its server as Nest assigns it (gateway-server.ts). */
type ServerListener = (gateway: object, server: unknown) => void;

const listeners = new Set<ServerListener>();

/**
 * Calls `listener` with each gateway instance and its server the moment Nest assigns the
 * server: before Nest binds the gateway's connection handler (NestJS 12 binds it then, where
 * 10 and 11 look it up at each connection). Returns what stops the calls.
 */
export function onServerAssigned(listener: ServerListener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function serverAssigned(gateway: object, server: unknown): void {
  for (const listener of listeners) listener(gateway, server);
}
