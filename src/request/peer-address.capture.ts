import { Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

interface ConnectionSource {
  on(event: string, listener: (socket: { remoteAddress?: string }) => void): unknown;
}

/**
 * Keeps each connection's client address readable after the client leaves. Node reads a
 * socket's peer address on first use and keeps it, but once the socket is closed an address
 * never read is gone: `req.ip` is then undefined (the trust-proxy rules start from it too).
 * A client that hung up before an IP limit read its address (during a slow guard that ran
 * first, or an async `skip`) would be counted on an empty IP, one key shared by every such
 * client. Reading the address when the connection opens keeps it: one `getpeername` per
 * connection, which the first `req.ip` would have made anyway.
 */
@Injectable()
export class PeerAddressCapture implements OnApplicationBootstrap {
  constructor(@Optional() private readonly adapterHost?: HttpAdapterHost) {}

  onApplicationBootstrap(): void {
    // No HTTP server in a microservice or a standalone application context.
    const server = this.adapterHost?.httpAdapter?.getHttpServer?.() as
      Partial<ConnectionSource> | undefined;
    if (typeof server?.on !== 'function') return;
    const remember = (socket: { remoteAddress?: string }): void => void socket?.remoteAddress;
    server.on('connection', remember);
    // TLS: the socket requests see is the TLS socket, a wrapper with an address of its own.
    server.on('secureConnection', remember);
  }
}
