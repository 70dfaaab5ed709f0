/** `@nestjs/websockets`' GATEWAY_METADATA, by value: the package is optional. */
const GATEWAY_METADATA = 'websockets:is_gateway';

/** The gateway method Nest calls when a client connects, which no guard runs before. */
export const CONNECTION_HANDLER = 'handleConnection';

export function isGateway(type: Function): boolean {
  return Reflect.getMetadata(GATEWAY_METADATA, type) === true;
}

/**
 * Whether a method is a gateway's `handleConnection`: its limits are its handshakes' alone
 * (connection-limits.ts), not the gateway's class limits or the module's defaults, which
 * apply to messages.
 */
export function isConnectionHandler(type: Function, methodName: string): boolean {
  return methodName === CONNECTION_HANDLER && isGateway(type);
}
