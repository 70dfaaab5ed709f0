/** The longest delay a Node timer keeps: a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits on a timer, never blocking the event loop. A wait longer than a timer can hold (a
 * queue behind a slow rate can reserve weeks ahead) is waited in parts, never cut short.
 */
export function sleep(milliseconds: number): Promise<void> {
  if (milliseconds <= MAX_TIMER_MS) {
    return new Promise((resolve) => setTimeout(resolve, milliseconds));
  }
  return new Promise<void>((resolve) => setTimeout(resolve, MAX_TIMER_MS)).then(() =>
    sleep(milliseconds - MAX_TIMER_MS),
  );
}
