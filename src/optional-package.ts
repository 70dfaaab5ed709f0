/**
 * An optional peer dependency, loaded on first use: undefined when it is not installed, so
 * the package loads and runs without it (GraphQL, WebSockets, microservices, OpenTelemetry).
 */
export function optionalPackage<T>(packageName: string): T | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(packageName) as T;
  } catch {
    return undefined;
  }
}
