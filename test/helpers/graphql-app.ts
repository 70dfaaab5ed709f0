import { ApolloDriver, ApolloDriverConfig } from '@nestjs/apollo';
import { CanActivate, DynamicModule, ExecutionContext, Injectable } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, MercuriusDriverConfig } from '@nestjs/mercurius';
import { Platform } from './http';

/** The HTTP request behind a resolver: Apollo's `req`, Mercurius's `reply.request`. */
export const requestOf = (context: ExecutionContext) => {
  const gql = context.getArgs()[2];
  return gql?.req ?? gql?.reply?.request;
};

/** A resolver-level auth guard (the user is the `x-user` header): Nest runs it after ours. */
@Injectable()
export class GqlAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = requestOf(context);
    request.user = { id: request.headers['x-user'] };
    return true;
  }
}

/** GraphQL on the platform's driver: Apollo on Express, Mercurius on Fastify. */
export function graphqlModuleFor(platform: Platform): DynamicModule {
  if (platform === 'express') {
    return GraphQLModule.forRoot<ApolloDriverConfig>({
      driver: ApolloDriver,
      autoSchemaFile: true,
      context: ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }),
    });
  }
  return GraphQLModule.forRoot<MercuriusDriverConfig>({
    driver: MercuriusDriver,
    autoSchemaFile: true,
    cache: false,
  });
}
