import { INestApplication, LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/**
 * Builds and initialises an app of `rootModule` without listening: its start-up checks run,
 * and one that fails closes what was built before the error goes on.
 */
export async function initApp(rootModule: any, logger: LoggerService): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [rootModule] })
    .setLogger(logger)
    .compile();
  const app = moduleRef.createNestApplication({ logger });
  try {
    await app.init();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}
