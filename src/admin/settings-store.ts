import type { Cluster, Redis } from 'ioredis';

/**
 * Where live settings are kept: one Redis hash of overrides (a field per limit name, its
 * value JSON with its own expiry) and one JSON string of network lists, so every server
 * polling them sees the same; or memory, for one process.
 */
export interface SettingsStore {
  readOverrides(): Promise<Record<string, string>>;
  /** Writes one override's JSON, or removes it (undefined). */
  writeOverride(name: string, json: string | undefined): Promise<void>;
  readNetworks(): Promise<string | null>;
  writeNetworks(json: string): Promise<void>;
}

export class RedisSettingsStore implements SettingsStore {
  private readonly overridesKey: string;
  private readonly networksKey: string;

  constructor(
    private readonly client: Redis | Cluster,
    keyPrefix: string,
  ) {
    this.overridesKey = `${keyPrefix}admin:overrides`;
    this.networksKey = `${keyPrefix}admin:networks`;
  }

  readOverrides(): Promise<Record<string, string>> {
    return this.client.hgetall(this.overridesKey);
  }

  async writeOverride(name: string, json: string | undefined): Promise<void> {
    if (json === undefined) await this.client.hdel(this.overridesKey, name);
    else await this.client.hset(this.overridesKey, name, json);
  }

  readNetworks(): Promise<string | null> {
    return this.client.get(this.networksKey);
  }

  async writeNetworks(json: string): Promise<void> {
    await this.client.set(this.networksKey, json);
  }
}

export class MemorySettingsStore implements SettingsStore {
  private readonly overrides = new Map<string, string>();
  private networks: string | null = null;

  async readOverrides(): Promise<Record<string, string>> {
    return Object.fromEntries(this.overrides);
  }

  async writeOverride(name: string, json: string | undefined): Promise<void> {
    if (json === undefined) this.overrides.delete(name);
    else this.overrides.set(name, json);
  }

  async readNetworks(): Promise<string | null> {
    return this.networks;
  }

  async writeNetworks(json: string): Promise<void> {
    this.networks = json;
  }
}
