/**
 * The chain an asset symbol (as OFAC and the other lists write it) lives on. Tokens issued on
 * several chains (USDT, USDC) are told apart by the shape of the address.
 */
const NETWORK_BY_SYMBOL: Record<string, string> = {
  XBT: 'bitcoin',
  BTC: 'bitcoin',
  ETH: 'ethereum',
  ETC: 'ethereum-classic',
  ARB: 'arbitrum',
  BSC: 'bnb-smart-chain',
  TRX: 'tron',
  XMR: 'monero',
  LTC: 'litecoin',
  BCH: 'bitcoin-cash',
  BSV: 'bitcoin-sv',
  BTG: 'bitcoin-gold',
  DASH: 'dash',
  XRP: 'xrp-ledger',
  XVG: 'verge',
  ZEC: 'zcash',
  SOL: 'solana',
  ADA: 'cardano',
  DOGE: 'dogecoin',
  DOT: 'polkadot',
  NEO: 'neo',
  VET: 'vechain',
  WAVES: 'waves',
  XLM: 'stellar',
  ZIL: 'zilliqa',
};

export function networkOf(symbol: string, address: string): string | null {
  const s = symbol.toUpperCase();
  if (s === 'USDT' || s === 'USDC' || s === 'BNB') {
    if (/^0x[0-9a-fA-F]{40}$/.test(address)) return s === 'BNB' ? 'bnb-smart-chain' : 'ethereum';
    if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return 'tron';
    if (/^bnb1[02-9ac-hj-np-z]+$/.test(address)) return 'bnb-beacon-chain';
    if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return 'solana';
    return null;
  }
  return NETWORK_BY_SYMBOL[s] ?? null;
}
