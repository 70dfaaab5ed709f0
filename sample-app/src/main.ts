import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap() {
  // With REDIS_URL the limits are shared by every instance; without it they are in memory.
  const app = await NestFactory.create(AppModule.register({ redis: process.env.REDIS_URL }));
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port);
  console.log(
    `sample app on http://localhost:${port}/limiter/rate (${process.env.REDIS_URL ? 'Redis' : 'in-memory store'})`,
  );
}
void bootstrap();
