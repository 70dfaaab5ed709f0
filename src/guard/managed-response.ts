import { ExecutionContext } from '@nestjs/common';
import { RESPONSE_PASSTHROUGH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';

const responseHandling = new WeakMap<Function, Map<string, boolean>>();

/**
 * Whether the handler writes the response itself (`@Res()` or `@Next()` without
 * `passthrough`), as Nest decides it: then the response may go on after the handler
 * returns. Read once per handler.
 */
export function managesResponse(context: ExecutionContext): boolean {
  const controller = context.getClass();
  const method = context.getHandler().name;
  let byMethod = responseHandling.get(controller);
  if (!byMethod) responseHandling.set(controller, (byMethod = new Map()));
  let manages = byMethod.get(method);
  if (manages === undefined) {
    const args: Record<string, { index: number }> =
      Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {};
    const takesResponse = Object.keys(args).some((name) => {
      const type = Number(name.split(':')[0]);
      return type === RouteParamtypes.RESPONSE || type === RouteParamtypes.NEXT;
    });
    manages =
      takesResponse && !Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, controller, method);
    byMethod.set(method, manages);
  }
  return manages;
}
