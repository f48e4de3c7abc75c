import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getAddress } from 'viem';
import { assetFormats, canonicalKey, cryptoKey, normalizeCrypto } from '../../../engine/normalize/index.js';
import { sharedData } from '../../../harness/paths.js';
import { syntheticRecords } from '../../../harness/synthetic.js';

const DIR = sharedData('crypto', 'by-chain-2024');

interface Listed {
  asset: string;
  value: string;
}

function listed(): Listed[] {
  const out: Listed[] = [];
  for (const file of readdirSync(DIR).sort()) {
    const asset = /^sanctioned_addresses_([A-Z]+)\.txt$/.exec(file)?.[1];
    assert.ok(asset, file);
    for (const line of readFileSync(`${DIR}/${file}`, 'utf8').split('\n')) {
      if (line.trim()) out.push({ asset, value: line });
    }
  }
  return out;
}

const LISTED = listed();

/** Flip the case of the first letter whose other case is a different character. */
function flipOneCase(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    if (flipped !== c) return s.slice(0, i) + flipped + s.slice(i + 1);
  }
  throw new Error(`no letter in ${s}`);
}

describe('normalizeCrypto on the OFAC per-asset files', () => {
  test('the files hold 654 addresses over 17 assets', () => {
    assert.equal(LISTED.length, 654);
    assert.equal(new Set(LISTED.map((l) => l.asset)).size, 17);
  });

  test('every address normalizes to a stable key that matches its own listing', () => {
    const keys = new Set(LISTED.map((l) => normalizeCrypto(l.value).key));
    for (const { value } of LISTED) {
      const { key } = normalizeCrypto(value);
      assert.equal(normalizeCrypto(key).key, key, value);
      assert.equal(normalizeCrypto(`  ${value}\t`).key, key, value);
      assert.equal(canonicalKey('crypto_address', value), key);
      assert.ok(keys.has(key));
      for (const variant of [value, value.toUpperCase(), value.toLowerCase(), flipOneCase(value), ` ${value} `]) {
        assert.equal(cryptoKey(variant), normalizeCrypto(variant).key, variant);
      }
    }
  });

  test("every address's format belongs to its asset, save two publication errors", () => {
    const mismatches = LISTED.filter((l) => !assetFormats(l.asset)!.includes(normalizeCrypto(l.value).chain)).map(
      (l) => `${l.asset} ${l.value} ${normalizeCrypto(l.value).chain}`,
    );
    // OFAC listed a Tron address under XBT.
    assert.deepEqual(mismatches, ['XBT TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq tron']);
    const unknown = LISTED.filter((l) => normalizeCrypto(l.value).chain === null).map((l) => `${l.asset} ${l.value}`);
    // A 32-byte hex string published as a Monero address: not an address format, kept (lower-cased hex).
    assert.deepEqual(unknown, ['XMR 5be5543ff73456ab9f2d207887e2af87322c651ea1a873c5b25b7ffae456c320']);
  });

  test('the asset hint names the chain of every compatible address', () => {
    const expected: Record<string, string> = {
      ARB: 'arbitrum',
      BCH: 'bitcoin-cash',
      BSC: 'bsc',
      BSV: 'bitcoin-sv',
      BTG: 'bitcoin-gold',
      DASH: 'dash',
      ETC: 'ethereum-classic',
      ETH: 'ethereum',
      LTC: 'litecoin',
      TRX: 'tron',
      XBT: 'bitcoin',
      XMR: 'monero',
      XRP: 'xrp',
      XVG: 'verge',
      ZEC: 'zcash',
    };
    for (const { asset, value } of LISTED) {
      const hinted = normalizeCrypto(value, asset);
      assert.equal(hinted.key, normalizeCrypto(value).key);
      if (value === 'TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq') assert.equal(hinted.chain, 'tron');
      else if (asset === 'USDT' || asset === 'USDC') assert.equal(hinted.chain, normalizeCrypto(value).chain);
      else assert.equal(hinted.chain, expected[asset], `${asset} ${value}`);
    }
  });

  test('counts of detected formats', () => {
    const counts: Record<string, number> = {};
    for (const { value } of LISTED) {
      const chain = normalizeCrypto(value).chain ?? 'unknown';
      counts[chain] = (counts[chain] ?? 0) + 1;
    }
    assert.deepEqual(counts, {
      bitcoin: 443,
      'bitcoin-cash': 6,
      'bitcoin-gold': 1,
      dash: 3,
      dogecoin: 1,
      evm: 165,
      litecoin: 10,
      monero: 2,
      tron: 18,
      unknown: 1,
      xrp: 1,
      zcash: 3,
    });
  });

  test('EVM addresses in checksum, upper and lower case map to one key, the same on every EVM asset', () => {
    const evm = LISTED.filter((l) => l.value.startsWith('0x'));
    assert.equal(evm.length, 165);
    for (const { value } of evm) {
      const key = value.toLowerCase();
      assert.equal(normalizeCrypto(value).key, key);
      assert.equal(normalizeCrypto(getAddress(value)).key, key);
      assert.equal(normalizeCrypto(`0x${value.slice(2).toUpperCase()}`).key, key);
      assert.equal(normalizeCrypto(key).key, key);
    }
    // One Lazarus-linked address is listed under ETH and ETC, another under ARB and BSC.
    const byKey = new Map<string, Set<string>>();
    for (const { asset, value } of evm) {
      const k = normalizeCrypto(value).key;
      byKey.set(k, (byKey.get(k) ?? new Set()).add(asset));
    }
    assert.deepEqual([...byKey.get('0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b')!].sort(), ['ETC', 'ETH']);
    assert.deepEqual([...byKey.get('0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c')!].sort(), ['ARB', 'BSC', 'ETH']);
  });

  test('bech32 addresses in upper case map to the lower-case key', () => {
    const bech = LISTED.filter((l) => /^(bc1|ltc1)/.test(l.value));
    assert.equal(bech.length, 80);
    for (const { value } of bech) {
      assert.equal(normalizeCrypto(value.toUpperCase()).key, value.toLowerCase());
      assert.equal(normalizeCrypto(value.toUpperCase()).chain, 'bitcoin');
    }
  });

  test('base58 addresses with one letter of another case are other keys', () => {
    const base58 = LISTED.filter((l) => {
      const chain = normalizeCrypto(l.value).chain;
      return chain !== null && chain !== 'evm' && !/^(bc1|ltc1|q|p)/.test(l.value);
    });
    assert.equal(base58.length, 654 - 165 - 80 - 6 - 1);
    for (const { value } of base58) {
      const changed = flipOneCase(value);
      assert.notEqual(normalizeCrypto(changed).key, normalizeCrypto(value).key, value);
      // The checksum no longer verifies, so the format is not recognized either.
      assert.equal(normalizeCrypto(changed).chain, null, changed);
    }
  });

  test('Bitcoin Cash CashAddr with or without prefix, any case, keys with the prefix', () => {
    for (const { asset, value } of LISTED.filter((l) => l.asset === 'BCH' && /^[qp]/.test(l.value))) {
      const key = `bitcoincash:${value}`;
      assert.equal(normalizeCrypto(value).key, key);
      assert.equal(normalizeCrypto(key).key, key);
      assert.equal(normalizeCrypto(value.toUpperCase()).key, key);
      assert.equal(normalizeCrypto(`BITCOINCASH:${value.toUpperCase()}`).key, key);
      assert.equal(normalizeCrypto(value, asset).chain, 'bitcoin-cash');
    }
    // A changed character breaks the checksum: not recognized, not lower-cased away.
    assert.deepEqual(normalizeCrypto('qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhr'), {
      key: 'qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhr',
      chain: null,
    });
  });
});

describe('normalizeCrypto on published test vectors and other formats', () => {
  test('BIP-173 and BIP-350 vectors (segwit v0 and taproot)', () => {
    assert.deepEqual(normalizeCrypto('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'), {
      key: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      chain: 'bitcoin',
    });
    assert.deepEqual(normalizeCrypto('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7'), {
      key: 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
      chain: 'bitcoin-testnet',
    });
    assert.deepEqual(normalizeCrypto('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'), {
      key: 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      chain: 'bitcoin',
    });
    // Wrong checksum (last character changed) and mixed case are not valid bech32.
    assert.equal(normalizeCrypto('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5').chain, null);
    assert.deepEqual(normalizeCrypto('bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'), {
      key: 'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      chain: null,
    });
  });

  test('Monero: standard and subaddresses verified by their Keccak checksum', () => {
    const xmr = LISTED.filter((l) => l.asset === 'XMR' && normalizeCrypto(l.value).chain === 'monero').map(
      (l) => l.value,
    );
    assert.deepEqual(
      xmr.map((v) => v[0]),
      ['4', '8'],
    );
    // Changing one character of the last block breaks the checksum.
    for (const v of xmr) assert.equal(normalizeCrypto(`${v.slice(0, -1)}${v.endsWith('L') ? 'M' : 'L'}`).chain, null);
  });

  test('Solana: base58 of 32 bytes, case kept', () => {
    assert.deepEqual(normalizeCrypto('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'), {
      key: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      chain: 'solana',
    });
    assert.equal(normalizeCrypto('11111111111111111111111111111111').chain, 'solana');
    assert.equal(normalizeCrypto('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'SOL').chain, 'solana');
  });

  test('the extractor-lowered 2026 OFAC JSON: hex and bech32 keys survive, base58 ones are not recognized', () => {
    const json = JSON.parse(readFileSync(sharedData('crypto', 'ofac-sanctioned-addresses-2026-08.json'), 'utf8')) as {
      addresses: Record<string, { type: string }>;
    };
    const entries = Object.entries(json.addresses);
    assert.equal(entries.length, 961);
    let evm = 0;
    let bech = 0;
    for (const [value, { type }] of entries) {
      const asset = type.replace('Digital Currency Address - ', '');
      const r = normalizeCrypto(value, asset);
      if (/^0x[0-9a-f]{40}$/.test(value)) {
        evm++;
        assert.equal(r.key, value);
      } else if (/^(bc1|ltc1|bnb1)/.test(value)) {
        bech++;
        assert.equal(r.key, value);
        assert.notEqual(r.chain, null, value);
      }
    }
    assert.equal(evm, 104);
    assert.equal(bech, 145);
    assert.deepEqual(normalizeCrypto('bnb136ns6lfw4zs5hg4n85vdthaad7hq5m4gtkgf23', 'BNB'), {
      key: 'bnb136ns6lfw4zs5hg4n85vdthaad7hq5m4gtkgf23',
      chain: 'bnb',
    });
    // Lower-casing a Tron address breaks its checksum: the JSON's keys cannot be matched as published.
    assert.equal(normalizeCrypto('tniq9axbp9ejuqhdhrwrfvaa8u3guqzh81').chain, null);
  });

  test('unknown formats are keyed by their trimmed text', () => {
    assert.deepEqual(normalizeCrypto('  not an address  '), { key: 'not an address', chain: null });
    assert.deepEqual(normalizeCrypto('0x1234'), { key: '0x1234', chain: null });
    assert.deepEqual(normalizeCrypto(''), { key: '', chain: null });
    assert.equal(canonicalKey('crypto_address', '   '), null);
    // A hint does not make an incompatible format that asset's.
    assert.deepEqual(normalizeCrypto('0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c', 'XBT'), {
      key: '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c',
      chain: 'evm',
    });
  });
});

describe('cryptoKey (the screening hot path) agrees with normalizeCrypto', () => {
  test('on every format, case and edge shape', () => {
    const samples = [
      ...LISTED.map((l) => l.value),
      ...[...syntheticRecords(5000, 3)].filter((r) => r.entity_type === 'crypto_address').map((r) => r.value),
      'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
      'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
      'BITCOINCASH:QPM2QSZNHKS23Z7629MMS6S4CWEF74VCWVY22GDX6A',
      'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
      '5be5543ff73456ab9f2d207887e2af87322c651ea1a873c5b25b7ffae456c320',
      '0x5BE5543FF73456AB9F2D207887E2AF87322C651EA1A873C5B25B7FFAE456C320',
      '0x5be5543ff73456ab9f2d207887e2af87322c651ea1a873c5b25b7ffae456c3',
      '0X7F367CC41522CE07553E823BF3BE79A889DEBE1B',
      '0x7f367cc41522ce07553e823bf3be79a889debe1',
      '0x7f367cc41522ce07553e823bf3be79a889debe1g',
      'ÄBC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4é',
      'ＢＣ１',
      '12345',
      'ABC-DEF',
      'abc def',
      '0x',
      '',
    ];
    for (const value of samples) {
      for (const variant of [value, value.toUpperCase(), value.toLowerCase(), ` ${value}\n`]) {
        assert.equal(cryptoKey(variant), normalizeCrypto(variant).key, JSON.stringify(variant));
      }
    }
  });
});
