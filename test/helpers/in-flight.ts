/**
 * Makes `total` decisions with `inFlight` of them pending at any time (each caller makes its
 * next once answered), and returns how many were allowed.
 */
export async function allowedOf(
  decide: () => Promise<boolean>,
  total: number,
  inFlight = 200,
): Promise<number> {
  let started = 0;
  let allowed = 0;
  const caller = async () => {
    while (started < total) {
      started++;
      if (await decide()) allowed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, caller));
  return allowed;
}
