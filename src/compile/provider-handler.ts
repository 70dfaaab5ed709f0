import { readClassLimits, readMethodLimits } from '../decorators/limit-metadata.accessor';

/**
 * Gateway message handlers, GraphQL resolvers and federation's reference resolvers, named as
 * their packages name them.
 */
const PROVIDER_HANDLER_METADATA = [
  'websockets:message_mapping',
  'graphql:resolver_name',
  'graphql:resolve_reference',
];

/** A provider's method the guard can see: decorated with limits, or a gateway or resolver handler. */
export function isProviderHandler(type: Function, method: Function): boolean {
  return (
    readClassLimits(type).length > 0 ||
    readMethodLimits(method).length > 0 ||
    PROVIDER_HANDLER_METADATA.some((key) => Reflect.hasMetadata(key, method))
  );
}
