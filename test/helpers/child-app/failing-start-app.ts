/**
 * An app whose start-up fails, in a process of its own that catches the error and then does
 * nothing more: the process must exit by itself. Env: REDIS_URL; FAILURE 'template' (a key
 * template syntax error, found when the app initializes), 'provider' (another provider
 * throws while the module's providers are built) or 'port' (the app starts, then cannot
 * listen: PORT is in use); ADMIN '1' adds the admin module. Prints `FAILED <message>`.
 */
import 'reflect-metadata';
import { CanActivate, Controller, Get, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CountLimit, RateLimiterAdminModule, RateLimiterModule } from '../../../src';

@Controller()
class BrokenTemplateController {
  @Get('sms')
  @CountLimit({ limit: 1, period: 60, key: 'sms:#{body.' })
  sms() {
    return 'ok';
  }
}

@Controller()
class FineController {
  @Get('fine')
  @CountLimit({ limit: 1, period: 60 })
  fine() {
    return 'ok';
  }
}

const failure = process.env.FAILURE;

/** The admin API is not called here: nobody may. */
@Injectable()
class NobodyGuard implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@Module({
  imports: [
    RateLimiterModule.forRoot({ redis: process.env.REDIS_URL }),
    ...(process.env.ADMIN === '1'
      ? [RateLimiterAdminModule.forRoot({ path: 'admin', guards: [NobodyGuard] })]
      : []),
  ],
  controllers: [failure === 'template' ? BrokenTemplateController : FineController],
  providers:
    failure === 'provider'
      ? [
          {
            provide: 'BROKEN',
            useFactory: () => {
              throw new Error('a provider that cannot start');
            },
          },
        ]
      : [],
})
class FailingModule {}

async function main(): Promise<void> {
  try {
    const app = await NestFactory.create(FailingModule, { logger: false, abortOnError: false });
    await app.listen(failure === 'port' ? Number(process.env.PORT) : 0, '127.0.0.1');
    process.stdout.write('STARTED\n');
  } catch (error) {
    process.stdout.write(`FAILED ${(error as Error).message}\n`);
  }
}

void main();
