/**
 * An optional peer dependency, loaded on first use: undefined when it is not installed, so
 * the package loads and runs without it (GraphQL, WebSockets, microservices, OpenTelemetry).
 */
export function optionalPackage<T>(packageName: string): T | undefined {
  // Node caches a module it found, not one it did not: a missing package is looked for once.
  if (MISSING.has(packageName)) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(packageName) as T;
  } catch {
    MISSING.add(packageName);
    return undefined;
  }
}

const MISSING = new Set<string>();

/** One export of an optional peer dependency, or undefined when it is not installed. */
export function optionalExport<T>(packageName: string, exportName: string): T | undefined {
  return optionalPackage<Record<string, T>>(packageName)?.[exportName];
}
