import { Logger } from '@nestjs/common';
import { SettingsStore } from './settings-store';

/** Networks never limited (`allow`) and refused (`deny`), in CIDR. */
export interface NetworkLists {
  allow: string[];
  deny: string[];
}

/** A named limit's options replaced until `expiresAtMs` (epoch ms). */
export interface LimitOverride {
  name: string;
  options: Record<string, unknown>;
  expiresAtMs: number;
}

/** How often every server reads the settings: a change shows everywhere within a second. */
const SETTINGS_POLL_MS = 500;

type Listener<T> = (value: T) => void;

/**
 * The settings changed through the admin API (limit overrides, network lists), read from
 * the settings store every {@link SETTINGS_POLL_MS} and published to listeners when they
 * change (an override's expiry is a change too). The guard's overrides listen here; so can
 * the network matcher.
 */
export class LiveSettings {
  private overrideList: LimitOverride[] = [];
  private networkLists: NetworkLists = { allow: [], deny: [] };
  private seen = { overrides: '', networks: '' };
  private readonly overrideListeners: Listener<LimitOverride[]>[] = [];
  private readonly networkListeners: Listener<NetworkLists>[] = [];
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;
  private readonly logger = new Logger('RateLimiterAdmin');

  constructor(readonly store: SettingsStore) {}

  /** The overrides in force now. */
  get overrides(): readonly LimitOverride[] {
    return this.overrideList;
  }

  get networks(): NetworkLists {
    return this.networkLists;
  }

  /** Calls `listener` with the overrides now and on every change; returns the unsubscribe. */
  onOverrides(listener: Listener<LimitOverride[]>): () => void {
    return subscribe(this.overrideListeners, listener, this.overrideList);
  }

  /** Calls `listener` with the network lists now and on every change; returns the unsubscribe. */
  onNetworks(listener: Listener<NetworkLists>): () => void {
    return subscribe(this.networkListeners, listener, this.networkLists);
  }

  start(): void {
    this.timer ??= setInterval(() => void this.refresh(), SETTINGS_POLL_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the store now (one read at a time); the API calls it after a write. */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<void> {
    let fields: Record<string, string>;
    let networks: string | null;
    try {
      [fields, networks] = await Promise.all([
        this.store.readOverrides(),
        this.store.readNetworks(),
      ]);
    } catch (error) {
      // Redis away: the settings last read stay in force.
      this.logger.debug(`Could not read live settings: ${(error as Error)?.message ?? error}`);
      return;
    }
    const overrides = parseOverrides(fields, Date.now());
    const overridesText = JSON.stringify(overrides);
    if (overridesText !== this.seen.overrides) {
      this.seen.overrides = overridesText;
      this.overrideList = overrides;
      this.publish(this.overrideListeners, overrides);
    }
    if ((networks ?? '') !== this.seen.networks) {
      this.seen.networks = networks ?? '';
      this.networkLists = parseNetworks(networks);
      this.publish(this.networkListeners, this.networkLists);
    }
  }

  private publish<T>(listeners: Listener<T>[], value: T): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        this.logger.error(`A live-settings listener threw: ${(error as Error)?.message ?? error}`);
      }
    }
  }
}

function subscribe<T>(listeners: Listener<T>[], listener: Listener<T>, now: T): () => void {
  listeners.push(listener);
  listener(now);
  return () => {
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  };
}

/** The overrides not expired at `nowMs`, by name; a field that is not ours is ignored. */
export function parseOverrides(fields: Record<string, string>, nowMs: number): LimitOverride[] {
  const overrides: LimitOverride[] = [];
  for (const name of Object.keys(fields).sort()) {
    try {
      const { options, expiresAtMs } = JSON.parse(fields[name]);
      if (typeof expiresAtMs === 'number' && expiresAtMs > nowMs && isRecord(options)) {
        overrides.push({ name, options, expiresAtMs });
      }
    } catch {
      // not JSON: ignored
    }
  }
  return overrides;
}

function parseNetworks(text: string | null): NetworkLists {
  try {
    const { allow, deny } = JSON.parse(text ?? '{}');
    return { allow: strings(allow), deny: strings(deny) };
  } catch {
    return { allow: [], deny: [] };
  }
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
