import { Controller, Get } from '@nestjs/common';
import { CountLimit, QuotaLimit } from '../../src';
import { useAppOnStore } from '../helpers/app-on-store';
import { call } from '../helpers/http';

@Controller('api')
class MeteredController {
  // The gate denies a request when its key was used once; the quota is the bill.
  @Get('convert')
  @QuotaLimit({
    key: "#{headers['x-tenant']}",
    limit: 10,
    cycle: 'month',
    idempotencyKey: '#{headers["idempotency-key"]}',
  })
  @CountLimit({ key: "#{headers['x-gate']}", limit: 1, period: '1h' })
  convert() {
    return { ok: true };
  }

  // The same quota read, charging nothing: a limit whose params are made per request (its
  // idempotency key) shares its state with every such quota limit, on each store.
  @Get('usage')
  @QuotaLimit({
    key: "#{headers['x-tenant']}",
    limit: 10,
    cycle: 'month',
    idempotencyKey: '#{headers["idempotency-key"]}',
    permits: 0,
  })
  usage() {
    return { ok: true };
  }
}

describe.each(['memory', 'redis'] as const)(
  'a quota charge undone by another limit forgets its idempotency key, on %s',
  (storeName) => {
    const env = useAppOnStore(storeName, [MeteredController]);
    const used = async (tenant: string) => {
      const reply = await call(env.port, {
        path: '/api/usage',
        headers: { 'x-tenant': tenant, 'idempotency-key': 'never-charged' },
      });
      expect(reply.status).toBe(200);
      return 10 - Number(reply.headers['x-ratelimit-remaining']);
    };
    const send = (tenant: string, gate: string, idempotencyKey: string) =>
      call(env.port, {
        path: '/api/convert',
        headers: { 'x-tenant': tenant, 'x-gate': gate, 'idempotency-key': idempotencyKey },
      });

    it('charges a retry of a denied request exactly once', async () => {
      const tenant = `retry-${storeName}`;
      expect((await send(tenant, 'used-up', 'order-1')).status).toBe(200);
      expect(await used(tenant)).toBe(1);
      // The gate denies: the quota's charge of order-2 is rolled back with the request.
      expect((await send(tenant, 'used-up', 'order-2')).status).toBe(429);
      expect(await used(tenant)).toBe(1);
      // Retried once the gate allows: order-2 was never charged, so this charges it.
      const retried = await send(tenant, 'open', 'order-2');
      expect(retried.status).toBe(200);
      expect(await used(tenant)).toBe(2);
      // Now charged, it is remembered: a second retry is charged nothing.
      expect((await send(tenant, 'open-again', 'order-2')).status).toBe(200);
      expect(await used(tenant)).toBe(2);
    });

    it('keeps a key charged before when a repeat of it is denied by another limit', async () => {
      const tenant = `repeat-${storeName}`;
      expect((await send(tenant, 'repeat-gate', 'order-1')).status).toBe(200);
      // A repeat of a charged key, denied by the used-up gate: the first charge stands.
      expect((await send(tenant, 'repeat-gate', 'order-1')).status).toBe(429);
      expect((await send(tenant, 'repeat-open', 'order-1')).status).toBe(200);
      expect(await used(tenant)).toBe(1);
    });
  },
);
