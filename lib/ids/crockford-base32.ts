/** Crockford's base32 alphabet in lower case: no i, l, o, u, so ids read and type without confusion. */
export const CROCKFORD_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The first `characters` base32 characters of `bytes` (5 bits each, most significant first). */
export function crockfordBase32(bytes: Uint8Array, characters: number): string {
  let out = '';
  for (let i = 0; i < characters; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const word = ((bytes[byte] ?? 0) << 8) | (bytes[byte + 1] ?? 0);
    out += CROCKFORD_ALPHABET[(word >> (11 - (bit & 7))) & 31];
  }
  return out;
}

/** `value` (a non-negative integer) in `characters` base32 characters, left-padded with zeros, so they sort like the numbers. */
export function crockfordBase32Number(value: number, characters: number): string {
  let out = '';
  for (let t = value, i = 0; i < characters; i++, t = Math.floor(t / 32)) out = CROCKFORD_ALPHABET[t % 32] + out;
  return out;
}
