import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RateLimiterModule, UpstreamBusyError, UpstreamLimit } from '../../../src';

@Injectable()
class MailService {
  readonly tenants: string[] = [];

  @UpstreamLimit('mailer', { tenant: (customer: string) => customer })
  send(customer: string, body: string): string {
    this.tenants.push(customer);
    return `${customer}:${body}`;
  }
}

@Injectable()
class Misnamed {
  @UpstreamLimit('mailr')
  send(): string {
    return 'never';
  }
}

const upstreams = [{ name: 'mailer', rate: 1, capacity: 2, timeout: 0 }];

describe('@UpstreamLimit on a service', () => {
  it('sends every call of the method through the budget: capacity calls, then busy', async () => {
    @Module({ imports: [RateLimiterModule.forRoot({ upstreams })], providers: [MailService] })
    class AppModule {}
    const app = await Test.createTestingModule({ imports: [AppModule] }).compile();
    await app.init();
    const mail = app.get(MailService);
    const outcomes = await Promise.allSettled([
      mail.send('acme', 'a'),
      mail.send('globex', 'b'),
      mail.send('acme', 'c'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect((outcomes[0] as PromiseFulfilledResult<string>).value).toBe('acme:a');
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(UpstreamBusyError);
    // `this` is the service, and the tenant function saw the arguments.
    expect(mail.tenants).toEqual(['acme', 'globex']);
    await app.close();
  });

  it('an upstream not declared fails start-up naming the class and the method', async () => {
    @Module({ imports: [RateLimiterModule.forRoot({ upstreams })], providers: [Misnamed] })
    class AppModule {}
    const app = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const failure = await app.init().then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(failure).toBe(
      "Misnamed.send @UpstreamLimit: upstream 'mailr' is not declared; declare it in " +
        'forRoot({ upstreams }) or with factory.upstream({ name, rate }); the upstreams are mailer',
    );
  });

  it('a wrong upstream option fails start-up naming the upstream and the option', async () => {
    @Module({
      imports: [RateLimiterModule.forRoot({ upstreams: [{ name: 'openai', rate: -1 }] })],
    })
    class AppModule {}
    await expect(Test.createTestingModule({ imports: [AppModule] }).compile()).rejects.toThrow(
      /upstream 'openai': option 'rate'/,
    );
  });
});
