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

/** One export of an optional peer dependency, or undefined when it is not installed. */
export function optionalExport<T>(packageName: string, exportName: string): T | undefined {
  return optionalPackage<Record<string, T>>(packageName)?.[exportName];
}
