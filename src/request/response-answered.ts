/**
 * Runs `then` with the response's status once the handler has answered: when the response
 * is sent in full, or, if its client left first, as soon as the status is decided (the
 * head was sent, or the handler ends the response later: Node then emits no `finish`).
 * A handler that never answers a client that left never runs it. `raw` is Node's response.
 */
export function whenAnswered(raw: any, then: (status: number) => void): void {
  if (raw.writableFinished) return then(raw.statusCode);
  const afterClose = () => {
    if (raw.writableFinished) return; // 'finish' told it
    if (raw.headersSent || raw.writableEnded) return then(raw.statusCode);
    // The client left before the handler answered: the handler's own answer still decides.
    onFirstCall(raw, ['writeHead', 'end'], () => then(raw.statusCode));
  };
  if (raw.closed || raw.destroyed) return afterClose();
  raw.once('finish', () => then(raw.statusCode));
  raw.once('close', afterClose);
}

/** Calls `then` after the first call of any of `methods` on `target`; the methods are then restored. */
function onFirstCall(target: any, methods: readonly string[], then: () => void): void {
  // A middleware may have wrapped them on the instance (compression does): put those back.
  const own = methods.map((name) => (Object.hasOwn(target, name) ? target[name] : undefined));
  const restore = () =>
    methods.forEach((name, i) => (own[i] ? (target[name] = own[i]) : delete target[name]));
  for (const name of methods) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function (this: unknown, ...args: unknown[]) {
      restore();
      const returned = original.apply(this, args);
      then();
      return returned;
    };
  }
}
