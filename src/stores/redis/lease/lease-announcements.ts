import type { AnnouncementListener } from '../denial-broadcast';
import type { DenialCache } from '../denial-cache';
import type { LeaseBook } from './lease-book';

/**
 * What the announcements tell a store: its remembered denials (when it keeps them) forget
 * the key; a reset or block elsewhere ends its leases of the key. Unheard, a reset may be
 * missed: every lease is forgotten, given back to no one.
 */
export function announcementsTo(
  denials: DenialCache | undefined,
  leases: LeaseBook,
): AnnouncementListener {
  return {
    forget: (key) => denials?.forget(key),
    hearing: () => denials?.hearing(),
    deaf: () => {
      denials?.deaf();
      leases.dropAll();
    },
    reset: (key) => leases.drop(key),
  };
}
