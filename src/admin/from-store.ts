import { HttpException, ServiceUnavailableException } from '@nestjs/common';

/** A Redis error answers 503, as the store's own unavailability does (never a 500). */
export async function fromStore<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof HttpException) throw error;
    throw new ServiceUnavailableException('The rate-limit store is unavailable');
  }
}
