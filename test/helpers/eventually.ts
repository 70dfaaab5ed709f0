/**
 * Polls `read` until it returns `expected` or `timeoutMs` passes, then returns the last
 * value read: for effects that land a moment later on the server (a closed socket leaving
 * CLIENT LIST). Assert on the result, so a timeout fails with the value actually seen.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  expected: T,
  timeoutMs = 2000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (value !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await read();
  }
  return value;
}
