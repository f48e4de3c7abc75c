/**
 * Legal forms of companies: their canonical abbreviations, the spelled-out phrases that stand for
 * them, and the kind of legal person each is. From general knowledge of company law (English,
 * German, French, Romance, Dutch, Nordic, Slavic, Baltic, Gulf and Asian forms); no name of the
 * lists or of the test data is taken into it.
 *
 * Two companies whose names agree but whose legal forms are of different kinds (an `AG` and a
 * `GmbH`, a `Ltd` and a `plc`, an `LLC` and an `LP`) are different legal persons: the matcher
 * treats the legal form as a feature of its own instead of a word of the name.
 */

/** Kinds of legal person. `any` is a word that names no particular kind (`Co.`, `Company`). */
type LegalKind = 'limited' | 'stock' | 'partnership' | 'establishment' | 'nonprofit' | 'any';

const KINDS: Record<Exclude<LegalKind, 'any'>, string[]> = {
  /** Private companies with limited liability. */
  limited: [
    'LLC',
    'LTD',
    'GMBH',
    'OOO',
    'TOO',
    'TOV',
    'SARL',
    'SRL',
    'SL',
    'BV',
    'BVBA',
    'PTY',
    'PVT',
    'PTE',
    'KFT',
    'SPZOO',
    'DOO',
    'EOOD',
    'OOD',
    'UAB',
    'SIA',
    'OU',
    'LTDA',
    'APS',
    'SRO',
    'WLL',
    'YK',
    'GK',
    'SDN',
    'AS',
  ],
  /** Companies with share capital (joint-stock, public and listed companies, corporations). */
  stock: [
    'JSC',
    'OJSC',
    'CJSC',
    'PJSC',
    'OAO',
    'ZAO',
    'PAO',
    'AO',
    'AG',
    'SA',
    'SAS',
    'PLC',
    'NV',
    'SPA',
    'ASA',
    'AS',
    'AB',
    'OY',
    'OYJ',
    'INC',
    'CORP',
    'KK',
    'SAE',
    'SAL',
    'AD',
    'EAD',
    'SE',
    'BHD',
    'SAOG',
    'SAOC',
    'QSC',
    'KSC',
    'BSC',
    'NA',
  ],
  partnership: ['LP', 'LLP', 'KG', 'OHG', 'SNC', 'SCS', 'GP'],
  establishment: ['EST', 'FZE', 'FZCO', 'FZC', 'FZ', 'FZLLC'],
  nonprofit: ['ANO', 'NKO', 'NPO', 'EV', 'GGMBH'],
};

const ANY = ['CO', 'SC', 'CIA'];

/** Canonical abbreviation → its kinds (an abbreviation may name several, `KFT`). */
const LEGAL_FORM_KINDS = new Map<string, LegalKind[]>();
for (const [kind, forms] of Object.entries(KINDS) as [LegalKind, string[]][]) {
  for (const f of forms) LEGAL_FORM_KINDS.set(f, [...(LEGAL_FORM_KINDS.get(f) ?? []), kind]);
}
for (const f of ANY) LEGAL_FORM_KINDS.set(f, ['any']);

/** Every canonical legal-form token. */
export const LEGAL_FORMS: ReadonlySet<string> = new Set(LEGAL_FORM_KINDS.keys());

/**
 * Spelled-out legal forms (and two-token abbreviations) → canonical tokens, longest first where
 * one is the start of another.
 */
export const LEGAL_PHRASES: readonly [string, string][] = [
  ['LIMITED LIABILITY COMPANY', 'LLC'],
  ['LIMITED LIABILITY CO', 'LLC'],
  ['LIMITED LIABILITY PARTNERSHIP', 'LLP'],
  ['LIMITED PARTNERSHIP', 'LP'],
  ['PUBLIC LIMITED COMPANY', 'PLC'],
  ['PUBLIC JOINT STOCK COMPANY', 'PJSC'],
  ['OPEN JOINT STOCK COMPANY', 'OJSC'],
  ['CLOSED JOINT STOCK COMPANY', 'CJSC'],
  ['JOINT STOCK COMPANY', 'JSC'],
  ['JOINT STOCK CO', 'JSC'],
  ['GESELLSCHAFT MIT BESCHRANKTER HAFTUNG', 'GMBH'],
  ['AKTIENGESELLSCHAFT', 'AG'],
  ['KOMMANDITGESELLSCHAFT', 'KG'],
  ['EINGETRAGENER VEREIN', 'EV'],
  ['SOCIETE ANONYME', 'SA'],
  ['SOCIEDAD ANONIMA', 'SA'],
  ['SOCIEDADE ANONIMA', 'SA'],
  ['SOCIETE PAR ACTIONS SIMPLIFIEE', 'SAS'],
  ['SOCIETE A RESPONSABILITE LIMITEE', 'SARL'],
  ['SOCIEDAD DE RESPONSABILIDAD LIMITADA', 'SRL'],
  ['SOCIEDAD LIMITADA', 'SL'],
  ['SOCIETA PER AZIONI', 'SPA'],
  ['SOCIETA A RESPONSABILITA LIMITATA', 'SRL'],
  ['SOCIETATEA CU RASPUNDERE LIMITATA', 'SRL'],
  ['BESLOTEN VENNOOTSCHAP', 'BV'],
  ['NAAMLOZE VENNOOTSCHAP', 'NV'],
  ['SPOLKA Z OGRANICZONA ODPOWIEDZIALNOSCIA', 'SPZOO'],
  ['SP Z OO', 'SPZOO'],
  ['SP ZOO', 'SPZOO'],
  ['OBSHCHESTVO S OGRANICHENNOY OTVETSTVENNOSTYU', 'OOO'],
  ['TOVARYSTVO Z OBMEZHENOYU VIDPOVIDALNISTYU', 'TOV'],
  ['PUBLICHNOE AKTSIONERNOE OBSHCHESTVO', 'PAO'],
  ['OTKRYTOE AKTSIONERNOE OBSHCHESTVO', 'OAO'],
  ['ZAKRYTOE AKTSIONERNOE OBSHCHESTVO', 'ZAO'],
  ['AKTSIONERNOE OBSHCHESTVO', 'AO'],
  ['AVTONOMNAYA NEKOMMERCHESKAYA ORGANIZATSIYA', 'ANO'],
  ['FREE ZONE ESTABLISHMENT', 'FZE'],
  ['FREE ZONE COMPANY', 'FZCO'],
  ['PRIVATE LIMITED', 'PVT LTD'],
  ['PROPRIETARY LIMITED', 'PTY LTD'],
  ['SENDIRIAN BERHAD', 'SDN BHD'],
  ['KABUSHIKI KAISHA', 'KK'],
  ['LIMITED', 'LTD'],
  ['LIMITADA', 'LTDA'],
  ['CORPORATION', 'CORP'],
  ['INCORPORATED', 'INC'],
  ['COMPANY', 'CO'],
  ['ESTABLISHMENT', 'EST'],
];

/**
 * Whether two sets of legal-form kinds can describe the same company: either names no legal
 * form, or one of them names no particular kind, or they share a kind.
 */
export function legalKindsCompatible(a: number, b: number): boolean {
  return a === 0 || b === 0 || (a & ANY_BIT) !== 0 || (b & ANY_BIT) !== 0 || (a & b) !== 0;
}

const KIND_BITS: Record<LegalKind, number> = {
  limited: 1,
  stock: 2,
  partnership: 4,
  establishment: 8,
  nonprofit: 16,
  any: 32,
};
const ANY_BIT = KIND_BITS.any;
/** Every kind but `any`. */
export const SPECIFIC_KINDS = ANY_BIT - 1;

/** The kinds of a canonical legal-form token as a bit set (0 when it is none). */
export function legalKindBits(token: string): number {
  const kinds = LEGAL_FORM_KINDS.get(token);
  let bits = 0;
  if (kinds) for (const k of kinds) bits |= KIND_BITS[k];
  return bits;
}
