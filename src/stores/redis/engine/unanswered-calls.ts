import type { Cluster, Redis } from 'ioredis';
import { StoreUnavailableError } from '../../../errors/store-unavailable.error';

/** What the engine recognizes as one of its own calls: a command's name and arguments. */
type IsEngineCall = (name: string, args: readonly unknown[]) => boolean;

interface QueuedCommand {
  command: { name: string; args: unknown[]; reject(error: Error): void };
}

interface CommandQueue {
  toArray(): QueuedCommand[];
  clear(): void;
  push(item: QueuedCommand): void;
}

/**
 * The engine's calls are never sent twice. ioredis sends again, after a reconnect, every
 * command whose reply it had not read when the connection closed (its
 * `autoResendUnfulfilledCommands`, on by default): a call that ran and whose reply was lost
 * would run twice, a give-back or a refund applied twice, an acquire counted twice. When a
 * connection closes, before ioredis reconnects (it tells `close` first), the engine's calls
 * still waiting for their reply are taken out of its queue and failed: each may have run
 * once, none runs again, and their callers follow the store-error policy. Commands that
 * were never written (ioredis's offline queue) are not among them: they go once, after the
 * reconnect. The app's own commands on a client it shares are left as ioredis treats them.
 *
 * This rather than a connection of the engine's own with `autoResendUnfulfilledCommands:
 * false`: ioredis then forgets those commands without settling them (their callers would
 * wait for ever), and a second connection per server doubles what a busy Redis holds.
 */
export class UnansweredCalls {
  private readonly watched = new Set<Redis>();
  private readonly onClose = new Map<Redis, () => void>();
  private readonly onNode = (node: Redis) => this.watch(node);

  constructor(
    private readonly client: Redis | Cluster,
    private readonly isEngineCall: IsEngineCall,
  ) {
    if (client.isCluster) {
      const cluster = client as Cluster;
      for (const node of cluster.nodes()) this.watch(node);
      cluster.on('+node', this.onNode);
    } else this.watch(client as Redis);
  }

  /** Stops watching: the store closes (a client it was given stays as it was). */
  stop(): void {
    if (this.client.isCluster) this.client.off('+node', this.onNode);
    for (const [node, listener] of this.onClose) node.off('close', listener);
    this.onClose.clear();
    this.watched.clear();
  }

  private watch(node: Redis): void {
    if (this.watched.has(node)) return;
    this.watched.add(node);
    const listener = () => this.failUnanswered(node);
    this.onClose.set(node, listener);
    node.on('close', listener);
  }

  private failUnanswered(node: Redis): void {
    const queue = (node as unknown as { commandQueue?: CommandQueue }).commandQueue;
    if (!queue) return;
    const items = queue.toArray();
    if (!items.some((item) => this.isEngineCall(item.command.name, item.command.args))) return;
    queue.clear();
    const error = new StoreUnavailableError(
      'the connection to Redis closed before the reply: not sent again (it may have run once)',
    );
    for (const item of items) {
      if (this.isEngineCall(item.command.name, item.command.args)) item.command.reject(error);
      else queue.push(item);
    }
  }
}
