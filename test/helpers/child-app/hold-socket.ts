// Connects one WebSocket client (ADAPTER: socket.io or ws) to PORT with QUERY and holds it
// open, printing CONNECTED once the gateway accepted it (REFUSED otherwise), until killed.
import { attempt } from '../connection-attempts';
import type { WsAdapterName } from '../gateway-on-redis';

void attempt(
  process.env.ADAPTER as WsAdapterName,
  Number(process.env.PORT),
  JSON.parse(process.env.QUERY ?? '{}') as Record<string, string>,
).then((result) => {
  process.stdout.write(result.connected ? 'CONNECTED\n' : `REFUSED ${JSON.stringify(result)}\n`);
  // Held open: the socket keeps the event loop alive until the test kills the process.
});
