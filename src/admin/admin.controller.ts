import {
  Body,
  CanActivate,
  Controller,
  Delete,
  Get,
  Header,
  Headers,
  HttpCode,
  Inject,
  Optional,
  Param,
  Post,
  Put,
  Query,
  SetMetadata,
  Type,
  UseGuards,
} from '@nestjs/common';
import { keyRefOf, minutesOf, networksOf, overrideOf, requireJson } from './admin-requests';
import { renderAdminPage } from './admin-page';
import { AdminService } from './admin.service';
import { AdminResponseHeaders } from './admin-response-headers';
import { OUTSIDE_DENY_LIST } from '../rate-limiter.constants';
import { OverloadGates } from '../compile/overload-gates';
import { RateLimiterFactory } from '../limiter/rate-limiter.factory';

/**
 * The admin page's controller, made per `forRoot` so its path is the option's, with the
 * app's guards on every route (they run before anything is read), and the app's guards
 * alone decide who may use it: the `deny` networks do not refuse it (the `allow` networks
 * still go unlimited). Every answer carries admin-response-headers.ts.
 */
export function adminControllerFor(
  path: string,
  guards: (Type<CanActivate> | CanActivate)[],
): Type<unknown> {
  const page = renderAdminPage();

  @Controller(path)
  @UseGuards(new AdminResponseHeaders(), ...guards)
  // Its own guards decide who may use it: a deny list that covers the admin would lock out
  // the very PUT that undoes it.
  @SetMetadata(OUTSIDE_DENY_LIST, true)
  class RateLimiterAdminController {
    constructor(
      @Inject(AdminService) private readonly admin: AdminService,
      @Inject(RateLimiterFactory) private readonly factory: RateLimiterFactory,
      @Optional() @Inject(OverloadGates) private readonly overload?: OverloadGates,
    ) {}

    @Get()
    @Header('Content-Type', 'text/html; charset=utf-8')
    @Header('Content-Security-Policy', page.contentSecurityPolicy)
    page(): string {
      return page.html;
    }

    @Get('api/top')
    async top(@Query('minutes') minutes?: unknown) {
      const checked = minutesOf(minutes);
      return { minutes: checked, keys: await this.admin.top(checked) };
    }

    /** The overload guard's gates: limit, in flight, refusals by class, the limit's last minute. */
    @Get('api/overload')
    overloadGates() {
      return { gates: this.overload?.snapshots() ?? [] };
    }

    /** The upstream budgets, as this server sees them: the learned rate and any pause. */
    @Get('api/upstreams')
    upstreams() {
      return { upstreams: this.factory.upstreamList().map((upstream) => upstream.status()) };
    }

    @Get('api/blocked')
    async blocked() {
      return { keys: await this.admin.blocked() };
    }

    @Post('api/peek')
    @HttpCode(200)
    peek(@Body() body: unknown, @Headers('content-type') type?: string) {
      requireJson(type);
      return this.admin.peek(keyRefOf(body));
    }

    @Post('api/reset')
    @HttpCode(200)
    async reset(@Body() body: unknown, @Headers('content-type') type?: string) {
      requireJson(type);
      const ref = keyRefOf(body);
      await this.admin.reset(ref);
      return { reset: ref.key };
    }

    /** The same as reset (see AdminService.reset): the page offers it on blocked keys. */
    @Post('api/unblock')
    @HttpCode(200)
    async unblock(@Body() body: unknown, @Headers('content-type') type?: string) {
      requireJson(type);
      const ref = keyRefOf(body);
      await this.admin.reset(ref);
      return { unblocked: ref.key };
    }

    @Get('api/overrides')
    overrides() {
      return { overrides: this.admin.settings.overrides };
    }

    @Put('api/overrides/:name')
    setOverride(
      @Param('name') name: string,
      @Body() body: unknown,
      @Headers('content-type') type?: string,
    ) {
      requireJson(type);
      const { options, ttlSeconds } = overrideOf(body);
      return this.admin.setOverride(name, options, ttlSeconds);
    }

    @Delete('api/overrides/:name')
    @HttpCode(204)
    async deleteOverride(@Param('name') name: string): Promise<void> {
      await this.admin.deleteOverride(name);
    }

    @Get('api/networks')
    networks() {
      return this.admin.settings.networks;
    }

    @Put('api/networks')
    setNetworks(@Body() body: unknown, @Headers('content-type') type?: string) {
      requireJson(type);
      return this.admin.setNetworks(networksOf(body));
    }
  }
  return RateLimiterAdminController;
}
