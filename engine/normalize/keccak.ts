/**
 * Keccak-256 (the pre-standard SHA-3 padding Ethereum and Monero use; node:crypto only has
 * SHA3-256), for address checksums. Lanes are 64-bit, held as pairs of 32-bit halves.
 */
const ROUND_CONSTANTS_HI = new Uint32Array(24);
const ROUND_CONSTANTS_LO = new Uint32Array(24);
const ROTATIONS = [
  0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
];
{
  // Round constants from the LFSR in the Keccak reference.
  let r = 1;
  for (let round = 0; round < 24; round++) {
    let hi = 0;
    let lo = 0;
    for (let j = 0; j < 7; j++) {
      r = ((r << 1) ^ ((r >> 7) * 0x71)) & 0xff;
      if (r & 2) {
        const bit = (1 << j) - 1;
        if (bit < 32) lo ^= 1 << bit;
        else hi ^= 1 << (bit - 32);
      }
    }
    ROUND_CONSTANTS_HI[round] = hi;
    ROUND_CONSTANTS_LO[round] = lo;
  }
}

function keccakF(hi: Uint32Array, lo: Uint32Array): void {
  const cHi = new Uint32Array(5);
  const cLo = new Uint32Array(5);
  const bHi = new Uint32Array(25);
  const bLo = new Uint32Array(25);
  for (let round = 0; round < 24; round++) {
    for (let x = 0; x < 5; x++) {
      cHi[x] = hi[x] ^ hi[x + 5] ^ hi[x + 10] ^ hi[x + 15] ^ hi[x + 20];
      cLo[x] = lo[x] ^ lo[x + 5] ^ lo[x + 10] ^ lo[x + 15] ^ lo[x + 20];
    }
    for (let x = 0; x < 5; x++) {
      const n = (x + 1) % 5;
      const dHi = cHi[(x + 4) % 5] ^ ((cHi[n] << 1) | (cLo[n] >>> 31));
      const dLo = cLo[(x + 4) % 5] ^ ((cLo[n] << 1) | (cHi[n] >>> 31));
      for (let y = 0; y < 25; y += 5) {
        hi[y + x] ^= dHi;
        lo[y + x] ^= dLo;
      }
    }
    // rho and pi: lane (x, y) rotated into (y, 2x + 3y).
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) {
        const i = x + 5 * y;
        const rot = ROTATIONS[i];
        let h = hi[i];
        let l = lo[i];
        if (rot >= 32) {
          const t = h;
          h = l;
          l = t;
        }
        const s = rot & 31;
        const nh = s ? (h << s) | (l >>> (32 - s)) : h;
        const nl = s ? (l << s) | (h >>> (32 - s)) : l;
        const j = y + 5 * ((2 * x + 3 * y) % 5);
        bHi[j] = nh;
        bLo[j] = nl;
      }
    }
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        hi[y + x] = bHi[y + x] ^ (~bHi[y + ((x + 1) % 5)] & bHi[y + ((x + 2) % 5)]);
        lo[y + x] = bLo[y + x] ^ (~bLo[y + ((x + 1) % 5)] & bLo[y + ((x + 2) % 5)]);
      }
    }
    hi[0] ^= ROUND_CONSTANTS_HI[round];
    lo[0] ^= ROUND_CONSTANTS_LO[round];
  }
}

export function keccak256(data: Uint8Array): Uint8Array {
  const RATE = 136;
  const padded = new Uint8Array(Math.floor(data.length / RATE + 1) * RATE);
  padded.set(data);
  padded[data.length] ^= 0x01;
  padded[padded.length - 1] ^= 0x80;
  const hi = new Uint32Array(25);
  const lo = new Uint32Array(25);
  for (let off = 0; off < padded.length; off += RATE) {
    for (let i = 0; i < RATE / 8; i++) {
      const p = off + i * 8;
      lo[i] ^= padded[p] | (padded[p + 1] << 8) | (padded[p + 2] << 16) | (padded[p + 3] << 24);
      hi[i] ^= padded[p + 4] | (padded[p + 5] << 8) | (padded[p + 6] << 16) | (padded[p + 7] << 24);
    }
    keccakF(hi, lo);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 4; i++) {
    for (let b = 0; b < 4; b++) {
      out[i * 8 + b] = (lo[i] >>> (8 * b)) & 0xff;
      out[i * 8 + 4 + b] = (hi[i] >>> (8 * b)) & 0xff;
    }
  }
  return out;
}
