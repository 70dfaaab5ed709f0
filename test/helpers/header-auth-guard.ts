import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

/** An app's auth guard, as a test binds it: the request's user is the `x-user` header. */
@Injectable()
export class HeaderAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    request.user = { id: request.headers['x-user'] };
    return true;
  }
}
