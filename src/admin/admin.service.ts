import {
  BadRequestException,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { LimitState, limitStateOf } from '../algorithms/state-ops/state-ops.model';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { CompiledLimit, PlannedLimit } from '../compile/compiled-limit';
import { DecisionListeners } from '../request/decision-listeners';
import { LimitExplorer } from '../compile/limit.explorer';
import { keyFormsOverlap } from '../keys/key-form';
import { NetworkPolicy } from '../keys/network-policy';
import { LimiterStore } from '../stores/limiter-store';
import { KeyRef } from './admin-requests';
import { DeniedKey, DenialLog, LimitRef, memberOf } from './denial-log';
import { DenialRecorder } from './denial-recorder';
import { LimitOverride, LiveSettings, NetworkLists } from './live-settings';
import { whenServing } from '../when-serving';
import { fromStore } from './from-store';
import { addedTo } from './live-networks';

/** A key blocked now, and for how long. */
interface BlockedKey extends KeyRef {
  blockedMs: number;
}

const TOP_ROWS = 20;
const BLOCKED_CANDIDATES = 100;

/**
 * What the admin API does: reads the denial log, acts on one key of one limit through the
 * limit's own state operations (so a key is only ever one of a real limit), and writes the
 * live settings every server polls.
 */
export class AdminService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  /** Cancels the live settings' start if the app closes before it serves. */
  private cancelStart: () => void = () => undefined;

  /** Limits whose options are functions, as last compiled for a request: for their peeks. */
  private readonly resolved = new Map<string, CompiledLimit>();
  private readonly recorder: DenialRecorder;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly logger = new Logger('RateLimiterAdmin');

  constructor(
    private readonly explorer: LimitExplorer,
    private readonly store: LimiterStore,
    private readonly listeners: DecisionListeners,
    private readonly log: DenialLog,
    readonly settings: LiveSettings,
    /** The module's allow and deny networks: the lists kept in Redis are added to them. */
    private readonly networks: NetworkPolicy,
    /** Where the app's HTTP server is: the settings are read once it listens. */
    private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.recorder = new DenialRecorder(log);
  }

  onModuleInit(): void {
    this.unsubscribe.push(
      this.listeners.add((event, limit) => {
        this.recorder.listen(event, limit);
        if (event.outcome === 'denied')
          this.resolved.set(memberOf({ limit: limit.where, name: limit.name }, ''), limit);
      }),
      this.settings.onOverrides((overrides) => this.applyOverrides(overrides)),
      this.settings.onNetworks(addedTo(this.networks, this.logger)),
    );
  }

  /**
   * Reads the live settings, then every 500 ms, once the app serves: an app that starts and
   * then cannot listen has opened no Redis connection, so its process can exit.
   */
  onApplicationBootstrap(): void {
    this.cancelStart = whenServing(this.adapterHost, () => {
      this.settings.start();
      void this.settings.refresh();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.cancelStart();
    this.settings.stop();
    this.unsubscribe.forEach((unsubscribe) => unsubscribe());
    await this.recorder.flush();
  }

  async top(minutes: number): Promise<DeniedKey[]> {
    await this.recorder.flush();
    return fromStore(this.log.top(minutes, Date.now(), TOP_ROWS));
  }

  /**
   * Keys recently denied whose limit reports a block now (peeked, so exact), or a lockout:
   * a `count: 'failures'` limit with nothing left refuses the key until its window resets,
   * whatever the key does, as a block would.
   */
  async blocked(): Promise<BlockedKey[]> {
    await this.recorder.flush();
    const candidates = await fromStore(this.log.deniedUntil(Date.now(), BLOCKED_CANDIDATES));
    const peeked = await Promise.all(
      candidates.map(async (candidate) => {
        const limit = this.compiled(candidate);
        if (!limit?.ops) return undefined;
        const state = await this.peekWith(limit, candidate.key);
        const lockedOut = limit.count === 'failures' && state.remaining === 0;
        const blockedMs = state.blockedMs > 0 || !lockedOut ? state.blockedMs : state.resetMs;
        const { key, limit: where, name } = candidate;
        return blockedMs > 0 ? { key, limit: where, name, blockedMs } : undefined;
      }),
    );
    return peeked.filter((row): row is BlockedKey => row !== undefined);
  }

  async peek(ref: KeyRef): Promise<LimitState> {
    const limit = this.limitOf(ref);
    const compiled = this.compiled(ref);
    if (!compiled?.ops) {
      throw new BadRequestException(
        `${limit.where} has no state to peek (a concurrency limit, or options that depend on a request not seen yet)`,
      );
    }
    return this.peekWith(compiled, ref.key);
  }

  /**
   * Forgets the key's state and its block. Unblocking is the same: a block lives in the
   * key beside the count that caused it, and lifting the block alone would leave a full
   * window that denies the next request anyway.
   */
  async reset(ref: KeyRef): Promise<void> {
    const limit = this.limitOf(ref);
    const compiled = this.compiled(ref);
    const reset = compiled?.ops?.reset;
    if (!compiled || !reset) {
      throw new BadRequestException(`${limit.where} has no state to reset (a concurrency limit)`);
    }
    await fromStore(
      this.store.evaluate({
        algorithm: reset,
        key: ref.key,
        params: compiled.params,
        partition: compiled.partition,
        request: undefined,
      }),
    );
    await fromStore(this.log.forget(memberOf(ref, ref.key)));
  }

  async setOverride(name: string, options: Record<string, unknown>, ttlSeconds: number) {
    if (!this.explorer.allLimits().some((limit) => limit.name === name)) {
      throw new NotFoundException(`No limit is named '${name}'`);
    }
    const current = new Map(this.settings.overrides.map((o) => [o.name, o.options]));
    current.set(name, options);
    try {
      this.explorer.applyOverrides(current, true);
    } catch (error) {
      if (error instanceof LimiterConfigError) throw new BadRequestException(error.message);
      throw error;
    }
    const override: LimitOverride = { name, options, expiresAtMs: Date.now() + ttlSeconds * 1000 };
    await fromStore(this.settings.store.writeOverride(name, JSON.stringify(override)));
    await this.settings.refresh();
    return override;
  }

  async deleteOverride(name: string): Promise<void> {
    await fromStore(this.settings.store.writeOverride(name, undefined));
    await this.settings.refresh();
  }

  async setNetworks(lists: NetworkLists): Promise<NetworkLists> {
    await fromStore(this.settings.store.writeNetworks(JSON.stringify(lists)));
    await this.settings.refresh();
    return this.settings.networks;
  }

  private applyOverrides(overrides: LimitOverride[]): void {
    try {
      this.explorer.applyOverrides(new Map(overrides.map((o) => [o.name, o.options])));
      // The leases taken under the limits replaced: their permits go back now (a request
      // under the new parameters waits for its key's, lease-book.ts).
      void this.store.endLeases?.();
    } catch (error) {
      // Written by a server whose limits differ from ours: this one keeps its limits.
      this.logger.error(`Live overrides not applied: ${(error as Error)?.message ?? error}`);
    }
  }

  /** The limit a request names; a key that limit could not have is refused. */
  private limitOf(ref: KeyRef): PlannedLimit {
    const limit = this.explorer
      .allLimits()
      .find((candidate) => candidate.where === ref.limit && candidate.name === ref.name);
    if (!limit) throw new NotFoundException(`No limit '${ref.name}' (${ref.limit}) on this server`);
    if (!keyFormsOverlap([ref.key], limit.keyForm)) {
      throw new BadRequestException(`'${ref.key}' is not a key of ${limit.where}`);
    }
    return limit;
  }

  private compiled(ref: LimitRef): CompiledLimit | undefined {
    const limit = this.explorer
      .allLimits()
      .find((candidate) => candidate.where === ref.limit && candidate.name === ref.name);
    if (!limit) return undefined;
    return limit.resolve ? this.resolved.get(memberOf(ref, '')) : limit;
  }

  private async peekWith(limit: CompiledLimit, key: string): Promise<LimitState> {
    const decision = await fromStore(
      this.store.evaluate({
        algorithm: limit.ops!.peek,
        key,
        params: limit.params,
        partition: limit.partition,
        request: limit.newRequest(0),
      }),
    );
    return limitStateOf(decision);
  }
}
