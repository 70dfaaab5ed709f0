import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { RequestLedger } from '../../../src/request/request-ledger';

const httpContext = (request: unknown) => {
  const context = new ExecutionContextHost([request, {}]);
  context.setType('http');
  return context;
};

describe('RequestLedger: what one request hands from the guard to its later phases', () => {
  it('lets the first guard of a request claim it, and no other', () => {
    const request = {};
    const claims = [1, 2, 3].map(() => RequestLedger.of(httpContext(request))!.claim());
    expect(claims).toEqual([true, false, false]);
    // Another request is claimed on its own.
    expect(RequestLedger.of(httpContext({}))!.claim()).toBe(true);
  });

  it('hands each piece of pending work over once, to whichever phase takes it first', () => {
    const request = {};
    const ledger = RequestLedger.of(httpContext(request))!;
    const release = () => Promise.resolve();
    const settle = () => Promise.resolve(true);
    ledger.leave('release', release);
    ledger.leave('settle', settle);
    expect(ledger.holds('release', release)).toBe(true);
    expect(RequestLedger.take(httpContext(request), 'release')).toBe(release);
    expect(RequestLedger.take(httpContext(request), 'release')).toBeUndefined();
    expect(ledger.holds('release', release)).toBe(false);
    expect(ledger.take('settle')).toBe(settle);
    expect(ledger.take('deferred')).toBeUndefined();
  });

  it('has no ledger for a request Nest gives no object for, and takes nothing there', () => {
    const rpc = new ExecutionContextHost([]);
    rpc.setType('rpc');
    jest.spyOn(rpc, 'getArgs').mockReturnValue('a primitive payload' as any);
    expect(RequestLedger.of(rpc)).toBeUndefined();
    expect(RequestLedger.take(rpc, 'deferred')).toBeUndefined();
  });
});
