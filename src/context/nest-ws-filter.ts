import { ArgumentsHost } from '@nestjs/common';
import { optionalExport } from '../optional-package';

interface WsExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void;
}

let filterSends: boolean | undefined;

/**
 * Whether Nest's WebSocket exception filter sends a gateway error to a `ws` socket itself.
 * Up to NestJS 11 it calls `client.emit('exception', ...)`, which on a `ws` socket only fires
 * a local event, so the module must send the denial; NestJS 12's filter sends it, and a
 * second copy from the module would reach the client too. Asked once, of the filter itself:
 * it is handed an exception for a socket shaped like a `ws` one and watched for a send, which
 * holds whichever version brought the change.
 */
export function nestFilterSendsToWs(): boolean {
  filterSends ??= askTheFilter();
  return filterSends;
}

function askTheFilter(): boolean {
  type Filter = new () => WsExceptionFilter;
  type Exception = new (error: object) => Error;
  const Filter = optionalExport<Filter>('@nestjs/websockets', 'BaseWsExceptionFilter');
  const Exception = optionalExport<Exception>('@nestjs/websockets', 'WsException');
  if (!Filter || !Exception) return false;
  let sent = false;
  const socket = {
    readyState: 1,
    send: () => void (sent = true),
    emit: () => true,
  };
  const ws = { getClient: () => socket, getData: () => undefined, getPattern: () => 'probe' };
  const host = { switchToWs: () => ws, getType: () => 'ws' } as unknown as ArgumentsHost;
  try {
    new Filter().catch(new Exception({ statusCode: 429, message: 'probe' }), host);
  } catch {
    return false; // a filter that cannot be asked: send as on the versions that need it
  }
  return sent;
}
