/** CRC16-XMODEM (polynomial 0x1021), the hash of Redis Cluster key slots, a byte at a time. */
const TABLE = new Uint16Array(256);
for (let byte = 0; byte < 256; byte++) {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  TABLE[byte] = crc & 0xffff;
}

function crc16(bytes: Uint8Array, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++)
    crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ bytes[i]) & 0xff];
  return crc;
}

/**
 * The Redis Cluster slot of a key: CRC16 of the key, or of its hash tag (the bytes between
 * the first `{` and the next `}`, when not empty), modulo 16384.
 */
export function clusterSlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes, open + 1, close) % 16384;
  }
  return crc16(bytes, 0, bytes.length) % 16384;
}
