import { RespErrorReply, RespReader, RespValue } from '../../../src/stores/resp/resp-reader';

/** Every reply type a script connection can receive, as Redis sends them. */
const WIRE =
  '*5\r\n:1\r\n:-2\r\n:1795387951407726\r\n:0\r\n:0\r\n' +
  '+OK\r\n' +
  '-NOSCRIPT No matching script. Please use EVAL.\r\n' +
  '$5\r\nhé!\r\n'.replace('$5', `$${Buffer.byteLength('hé!')}`) +
  '$-1\r\n' +
  '*-1\r\n' +
  '*2\r\n*1\r\n:7\r\n$0\r\n\r\n' +
  '$4\r\na\r\nb\r\n';

const EXPECTED: RespValue[] = [
  [1, -2, 1795387951407726, 0, 0],
  'OK',
  new RespErrorReply('NOSCRIPT No matching script. Please use EVAL.'),
  'hé!',
  null,
  null,
  [[7], ''],
  'a\r\nb',
];

function readAll(chunks: Buffer[]): RespValue[] {
  const replies: RespValue[] = [];
  const reader = new RespReader((value) => replies.push(value));
  for (const chunk of chunks) reader.feed(chunk);
  return replies;
}

describe('RespReader', () => {
  const bytes = Buffer.from(WIRE, 'utf8');

  it('reads every reply type in order from one chunk', () => {
    expect(readAll([bytes])).toEqual(EXPECTED);
  });

  it('reads the same replies whatever byte the stream is split at', () => {
    for (let at = 1; at < bytes.length; at++) {
      expect([at, readAll([bytes.subarray(0, at), bytes.subarray(at)])]).toEqual([at, EXPECTED]);
    }
  });

  it('reads the same replies fed one byte at a time', () => {
    const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(readAll(single)).toEqual(EXPECTED);
  });

  it('forgets a partial reply on reset, so a new connection starts clean', () => {
    const replies: RespValue[] = [];
    const reader = new RespReader((value) => replies.push(value));
    reader.feed(Buffer.from('*5\r\n:1\r\n:2'));
    reader.reset();
    reader.feed(Buffer.from(':42\r\n'));
    expect(replies).toEqual([42]);
  });

  it('refuses a byte that starts no RESP2 reply', () => {
    const reader = new RespReader(() => undefined);
    expect(() => reader.feed(Buffer.from('%1\r\n'))).toThrow('Unexpected RESP type byte 37');
  });
});
