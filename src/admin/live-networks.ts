import { Logger } from '@nestjs/common';
import { NetworkPolicy } from '../keys/network-policy';
import { NetworkLists } from './live-settings';

/**
 * Applies the lists kept in Redis on top of the ones `forRoot` gave: the configured networks
 * stay, the live ones are added, and a new live set replaces the previous live set.
 */
export function addedTo(networks: NetworkPolicy, logger: Logger): (live: NetworkLists) => void {
  const configured = networks.lists;
  return (live) => {
    try {
      networks.setLists({
        allow: [...configured.allow, ...(live.allow ?? [])],
        deny: [...configured.deny, ...(live.deny ?? [])],
      });
    } catch (error) {
      logger.error(`Network lists from Redis not applied: ${(error as Error).message}`);
    }
  };
}
