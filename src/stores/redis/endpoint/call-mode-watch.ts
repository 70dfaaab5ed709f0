import { Logger } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { RedisCallMode } from '../engine/call-mode';
import type { EngineClient } from '../engine/client';
import { describeClient } from './endpoint-description';
import { EndpointCompatibility, needsPerSlotCalls, probeEndpoint } from './endpoint-probe';

/** What a probe found refused, for the log. */
function refusals(found: EndpointCompatibility): string {
  const refused = [
    found.crossSlotKeys === false && 'keys of two slots in one script',
    found.undeclaredKeys === false && 'keys a script did not declare',
    found.scriptFlags === false && 'script flags',
  ].filter(Boolean);
  return refused.join(', ');
}

/**
 * Keeps the engine calling Redis the way the endpoint accepts: probes it once connected and
 * after each reconnect (an endpoint may change behind one address: a failover, a new ACL), and
 * logs each change of mode, and a refusal at run time, once. FCALL or EVALSHA follows every
 * probe, both ways; one call per connection or per slot follows it under `redisCalls: 'auto'`.
 */
export class CallModeWatch {
  /** What the last probe found; undefined before it answered, or with a mode set in options. */
  compatibility?: EndpointCompatibility;
  private readonly onReady = (): void => void this.probe();
  private started = false;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly engine: EngineClient,
    private readonly mode: RedisCallMode,
    private readonly logger = new Logger('RateLimiter'),
  ) {
    engine.perSlot = mode === 'per-slot';
    engine.onPerSlot = (refusal) =>
      this.logger.warn(
        `Redis at ${describeClient(client)} refused a script across hash slots ` +
          `(${refusal.message.split('\n')[0]}): the store now sends one call per hash slot, ` +
          `every key declared, and sent the refused decisions again`,
      );
  }

  /**
   * Probes now if connected, and on every (re)connection; once only. Whatever `redisCalls`
   * says, FCALL or EVALSHA follows what each probe finds of Functions.
   */
  start(): Promise<void> | undefined {
    if (this.started) return undefined;
    this.started = true;
    this.client.on('ready', this.onReady);
    return this.client.status === 'ready' ? this.probe() : undefined;
  }

  stop(): void {
    this.client.removeListener('ready', this.onReady);
  }

  private async probe(): Promise<void> {
    const found = await probeEndpoint(this.client, this.mode === 'auto');
    this.engine.followFunctions(found.functions);
    if (this.mode !== 'auto') return;
    this.compatibility = found;
    const perSlot = needsPerSlotCalls(found, this.client.isCluster);
    if (perSlot === undefined || perSlot === this.engine.perSlot) return;
    this.engine.perSlot = perSlot;
    const where = describeClient(this.client);
    if (perSlot) {
      this.logger.warn(
        `Redis at ${where} refuses scripts across hash slots (${refusals(found)}): the store ` +
          `sends one call per hash slot, every key declared`,
      );
    } else {
      this.logger.log(`Redis at ${where} takes scripts across hash slots: one call per connection`);
    }
  }
}
