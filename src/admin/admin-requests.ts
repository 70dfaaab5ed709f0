import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import { parseCidr } from '../keys/cidr';
import { DENIAL_MINUTES_KEPT } from './admin.options';
import { LimitRef } from './denial-log';
import { isRecord, NetworkLists } from './live-settings';

/** What the API reads from a client, checked: anything else is a 400 naming the field. */

/**
 * Refuses a body that is not JSON: a form on another site can post urlencoded or plain text
 * with the admin's cookies, but not JSON (that needs a CORS preflight).
 */
export function requireJson(contentType: string | undefined): void {
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) {
    throw new UnsupportedMediaTypeException('the body must be application/json');
  }
}

/** A key of one limit, as `top` and `blocked` list them. */
export interface KeyRef extends LimitRef {
  key: string;
}

const MAX_TEXT = 2048;
/** Longest override: a week. */
const MAX_OVERRIDE_SECONDS = 7 * 24 * 3600;
const MAX_NETWORKS = 1000;

function text(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT) {
    throw new BadRequestException(`'${field}' must be a non-empty string`);
  }
  return value;
}

export function keyRefOf(body: unknown): KeyRef {
  if (!isRecord(body)) throw new BadRequestException('the body must be a JSON object');
  return { limit: text(body, 'limit'), name: text(body, 'name'), key: text(body, 'key') };
}

export function minutesOf(query: unknown): number {
  if (query === undefined) return 5;
  const minutes = Number(query);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > DENIAL_MINUTES_KEPT) {
    throw new BadRequestException(`'minutes' must be an integer from 1 to ${DENIAL_MINUTES_KEPT}`);
  }
  return minutes;
}

/** `{ options: { limit: 5 }, ttl: 600 }`: the options (checked by compiling them) and seconds. */
export function overrideOf(body: unknown): {
  options: Record<string, unknown>;
  ttlSeconds: number;
} {
  if (!isRecord(body)) throw new BadRequestException('the body must be a JSON object');
  const { options, ttl } = body;
  if (!isRecord(options) || Object.keys(options).length === 0) {
    throw new BadRequestException(
      `'options' must be an object of limit options, e.g. { "limit": 5 }`,
    );
  }
  for (const [name, value] of Object.entries(options)) {
    const plain = typeof value === 'number' || typeof value === 'string';
    const steps = Array.isArray(value) && value.every((step) => typeof step === 'number');
    if (!plain && !steps) {
      throw new BadRequestException(`option '${name}' must be a number or a duration string`);
    }
  }
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl <= 0 || ttl > MAX_OVERRIDE_SECONDS) {
    throw new BadRequestException(`'ttl' must be seconds from 1 to ${MAX_OVERRIDE_SECONDS}`);
  }
  return { options, ttlSeconds: ttl };
}

export function networksOf(body: unknown): NetworkLists {
  if (!isRecord(body)) throw new BadRequestException('the body must be a JSON object');
  return { allow: cidrList(body.allow, 'allow'), deny: cidrList(body.deny, 'deny') };
}

function cidrList(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_NETWORKS) {
    throw new BadRequestException(`'${field}' must be a list of CIDR networks`);
  }
  return value.map((item) => {
    if (typeof item !== 'string' || typeof parseCidr(item) === 'string') {
      throw new BadRequestException(`'${field}': ${JSON.stringify(item)} is not a CIDR network`);
    }
    return item;
  });
}
