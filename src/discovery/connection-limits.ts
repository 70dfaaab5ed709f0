import {
  BeforeApplicationShutdown,
  HttpException,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { RequestLedger } from '../request/request-ledger';
import { recordUpgradeRequest } from '../context/ws-context';
import { nestFilterSendsToWs } from '../context/nest-ws-filter';
import { onServerAssigned } from './server-listeners';
import { readMethodLimits } from '../decorators/limit-metadata.accessor';
import { CONNECTION_HANDLER, isGateway } from '../compile/connection-handler';
import { RateLimitGuard } from '../request/rate-limit.guard';
import { askForServer, serverOf } from './gateway-server';
import { ConnectionSlots, HeldSlots } from './connection-slots';

/** What a refused client is told: the body a denied message gets. */
interface Refusal {
  statusCode: number;
  message: string;
  [field: string]: unknown;
}

/** `ws` close codes (RFC 6455 and the IANA registry): try again later, policy violation. */
const TRY_AGAIN_LATER = 1013;
const POLICY_VIOLATION = 1008;
/** A `ws` socket's readyState once it closes (CLOSING, then CLOSED). */
const CLOSING = 2;
/** A close frame's reason holds at most 123 bytes. */
const MAX_REASON_BYTES = 123;
/** The close reason of a `ws` socket whose slot the store no longer holds. */
const SLOT_LOST = JSON.stringify({ statusCode: 429, message: 'Connection slot lost' });

/**
 * Limits on a gateway's `handleConnection` limit its handshakes: `@CountLimit` how many per
 * period, `@ConcurrencyLimit` how many sockets are open at once (the slot is renewed while
 * the socket is open, connection-slots.ts, and comes back when it disconnects, a client that
 * vanished included). Nest runs no guard there, so the
 * module decides with the guard at connection time and refuses the socket as its adapter
 * can: a socket.io middleware (the client gets `connect_error`, `data` holding the body a
 * denied message gets), or, on `ws`, a close with 1013 (try again later) and the body as
 * its reason. Only the method's own limits apply: the gateway's class limits and the
 * module's defaults are for its messages.
 */
@Injectable()
export class ConnectionLimits implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly gateways = new Set<Function>();
  private readonly held = new Set<ConnectionSlots>();
  private readonly logger = new Logger('RateLimiter');
  private readonly stopListening: () => void;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly guard: RateLimitGuard,
  ) {
    for (const { metatype } of discovery.getProviders()) {
      if (typeof metatype !== 'function' || !metatype.prototype || !isGateway(metatype)) continue;
      const handler = metatype.prototype[CONNECTION_HANDLER] as unknown;
      if (typeof handler !== 'function' || readMethodLimits(handler).length === 0) continue;
      askForServer(metatype);
      this.gateways.add(metatype);
    }
    const limited = this.gateways.size > 0;
    this.stopListening = limited ? onServerAssigned((...args) => this.connecting(...args)) : noop;
  }

  /**
   * Nest connects a gateway: on `ws`, `handleConnection` is wrapped now, before NestJS 12
   * binds it (at bootstrap it would wrap a method Nest no longer calls). A socket.io
   * middleware waits for bootstrap, to run after the app's own.
   */
  private connecting(instance: object, server: unknown): void {
    if (!server || typeof (server as { use?: unknown }).use === 'function') return;
    const owner = this.discovery.getProviders().find((each) => each.instance === instance);
    const gateway = owner?.metatype as Function | undefined;
    if (gateway && this.gateways.has(gateway)) this.limitWs(instance, gateway);
  }

  /** After Nest connected the gateways, before it lets clients in. */
  onApplicationBootstrap(): void {
    this.stopListening();
    for (const { metatype, instance } of this.discovery.getProviders()) {
      if (!instance || !this.gateways.has(metatype as Function)) continue;
      const server = serverOf(instance) as { use?: Function } | undefined;
      // Not connected (Nest's preview mode): no client will come. On `ws`, done as it connected.
      if (typeof server?.use === 'function') this.limitSocketIo(server, metatype as Function);
    }
  }

  /** A middleware: it runs after the app's own (its auth), before the socket connects. */
  private limitSocketIo(server: { use?: Function }, gateway: Function): void {
    server.use!((socket: any, next: (error?: Error) => void) => {
      this.decide(gateway, socket, socket.handshake?.auth).then(
        (slots) => {
          // Gone while it was decided: a socket that never connects never disconnects.
          if (slots && socket.conn?.readyState !== 'open') void slots.release();
          else if (slots) {
            const held = this.hold(slots, () => socket.disconnect(true));
            socket.once('disconnect', () => this.letGo(held));
          }
          next();
        },
        (refusal: Refusal) => next(Object.assign(new Error(refusal.message), { data: refusal })),
      );
    });
  }

  /**
   * `handleConnection` decides first: the socket reads nothing until it is decided (Nest
   * has bound its message handlers already), and the gateway's own method runs only for an
   * allowed socket.
   */
  private limitWs(instance: any, gateway: Function): void {
    const handleConnection = instance[CONNECTION_HANDLER] as Function;
    instance[CONNECTION_HANDLER] = (client: any, request: unknown, ...rest: unknown[]) => {
      recordUpgradeRequest(client, request);
      client.pause?.();
      return this.decide(gateway, client, undefined).then(
        (slots) => {
          // Gone while it was decided: its close event has passed.
          if (slots && client.readyState >= CLOSING) void slots.release();
          else if (slots) {
            const held = this.hold(slots, () => client.close(TRY_AGAIN_LATER, SLOT_LOST));
            client.once('close', () => this.letGo(held));
          }
          client.resume?.();
          return handleConnection.call(instance, client, request, ...rest);
        },
        (refusal: Refusal) => {
          client.resume?.();
          // No exception filter runs on a connection; the guard left the denial to one (Nest 12).
          if (nestFilterSendsToWs()) {
            client.send(JSON.stringify({ event: 'exception', data: refusal }));
          }
          const code = refusal.statusCode === 429 || refusal.statusCode === 503;
          client.close(code ? TRY_AGAIN_LATER : POLICY_VIOLATION, reasonOf(refusal));
        },
      );
    };
  }

  /** The app shuts down: its sockets close, and their slots go back, without more renewals. */
  beforeApplicationShutdown(): void {
    for (const held of this.held) held.stopRenewing();
  }

  /** An open socket's slots, held until it closes (`lost`: the store refused a renewal). */
  private hold(slots: HeldSlots, lost: () => void): ConnectionSlots {
    const held = new ConnectionSlots(slots, lost);
    this.held.add(held);
    return held;
  }

  private letGo(held: ConnectionSlots): void {
    this.held.delete(held);
    held.close();
  }

  /**
   * The guard's decision on the connection's limits: resolves with the slots it holds
   * (undefined when none), rejects with the body of a refusal.
   */
  private async decide(
    gateway: Function,
    client: unknown,
    data: unknown,
  ): Promise<HeldSlots | undefined> {
    const handler = (gateway.prototype as Record<string, Function>)[CONNECTION_HANDLER];
    const context = new ExecutionContextHost([client, data], gateway as never, handler);
    context.setType('ws');
    try {
      await this.guard.canActivate(context);
    } catch (error) {
      throw this.refusalOf(error);
    }
    const release = RequestLedger.take(context, 'release');
    return release && { release, renewal: RequestLedger.take(context, 'renew') };
  }

  private refusalOf(error: unknown): Refusal {
    const body =
      (error as { getError?: () => unknown })?.getError?.() ??
      (error instanceof HttpException ? error.getResponse() : undefined);
    if (body && typeof body === 'object' && 'statusCode' in body) return body as Refusal;
    this.logger.error(`A connection's limits failed: ${(error as Error)?.message ?? error}`);
    return { statusCode: 500, message: 'Internal server error' };
  }
}

function noop(): void {}

/** The refusal as a close reason: its JSON body, or its message when that is too long. */
function reasonOf(refusal: Refusal): string {
  const json = JSON.stringify(refusal);
  if (Buffer.byteLength(json) <= MAX_REASON_BYTES) return json;
  let reason = refusal.message;
  while (Buffer.byteLength(reason) > MAX_REASON_BYTES) reason = reason.slice(0, -1);
  return reason;
}
