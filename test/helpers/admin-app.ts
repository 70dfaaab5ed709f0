import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Injectable,
  Module,
  UnauthorizedException,
} from '@nestjs/common';
import {
  CountLimit,
  LimitType,
  RateLimiterAdminModule,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { call, HttpReply, Platform, startApp } from './http';

/** The header the test admin guard wants. */
export const ADMIN_HEADERS = { 'x-admin-token': 'letmein' };

/** Lets through only requests carrying {@link ADMIN_HEADERS}. */
@Injectable()
export class TokenAdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    return request.headers['x-admin-token'] === ADMIN_HEADERS['x-admin-token'];
  }
}

/** 2 requests a minute per IP, then blocked for a minute. */
@Controller('hit')
export class HitController {
  @Get()
  @CountLimit({ name: 'perIp', limit: 2, period: 60, block: 60, limitType: LimitType.IP })
  hit() {
    return 'ok';
  }
}

/** Every login fails; 2 failures a minute per IP, then locked out until the minute ends. */
@Controller('login')
export class FailingLoginController {
  @Get()
  @CountLimit({ name: 'failedLogins', limit: 2, period: 60, count: 'failures', limitType: 'IP' })
  login() {
    throw new UnauthorizedException();
  }
}

export const LOGIN_LIMIT = '@CountLimit on FailingLoginController.login';
export const loginKey = (ip: string) => `countLimit:~FailingLoginController.login:${ip}`;

export const HIT_LIMIT = '@CountLimit on HitController.hit';
export const hitKey = (ip: string) => `countLimit:~HitController.hit:${ip}`;

/**
 * An app with the hit and failing-login routes (or the controllers given) and the admin page
 * at /rate-limits.
 */
export function startAdminApp(
  platform: Platform,
  limiter: RateLimiterModuleOptions,
  controllers: any[] = [HitController, FailingLoginController],
): ReturnType<typeof startApp> {
  @Module({
    imports: [
      RateLimiterModule.forRoot(limiter),
      RateLimiterAdminModule.forRoot({ path: 'rate-limits', guards: [TokenAdminGuard] }),
    ],
    controllers,
  })
  class AdminAppModule {}
  return startApp(AdminAppModule, platform);
}

/** One hit from `ip` (a 127.0.0.x address), answering its status. */
export async function hit(port: number, ip: string): Promise<number> {
  return (await call(port, { path: '/hit', localAddress: ip })).status;
}

/** One login from `ip` (a 127.0.0.x address), answering its status. */
export async function failLogin(port: number, ip: string): Promise<number> {
  return (await call(port, { path: '/login', localAddress: ip })).status;
}

/** A call to the admin API as an admin. */
export function adminCall(
  port: number,
  method: string,
  path: string,
  json?: unknown,
): Promise<HttpReply> {
  return call(port, { method, path: `/rate-limits/${path}`, headers: ADMIN_HEADERS, json });
}
