/**
 * Classes of name words, from general knowledge of naming conventions (no name of the lists or of
 * the test data): particles, patronymic markers, titles, and the generic words of organisation
 * names. They decide how much a word weighs in a comparison, not whether it is kept.
 */

/**
 * Particles of family names and articles, with the spelling they are compared in (`EL`, `UL`
 * are `AL`; `BEN`, `IBN` are `BIN`): the same particle written two ways is the same word.
 */
export const PARTICLES = new Map<string, string>([
  ...['AL', 'EL', 'UL', 'ED', 'AD', 'AN', 'AR', 'AS', 'ASH', 'AT', 'AZ', 'UD', 'ADH', 'ATH'].map((p): [string, string] => [p, 'AL']),
  ...['BIN', 'BEN', 'IBN', 'BN'].map((p): [string, string] => [p, 'BIN']),
  ...['BINT', 'BINTI', 'BINTE'].map((p): [string, string] => [p, 'BINT']),
  ...['OULD', 'ULD', 'WALD', 'WALAD'].map((p): [string, string] => [p, 'OULD']),
  ...['ABU', 'ABOU', 'ABO', 'BOU'].map((p): [string, string] => [p, 'ABU']),
  ...['UMM', 'UM', 'OMM'].map((p): [string, string] => [p, 'UMM']),
  ...[
    'THE', 'OF', 'AND', 'FOR', 'DE', 'DEL', 'DELA', 'LA', 'LE', 'LES', 'LOS', 'LAS', 'DA', 'DI', 'DOS', 'DAS', 'DU', 'DES',
    'VAN', 'VON', 'DER', 'DEN', 'TER', 'TEN', 'ZU', 'VOM', 'ST', 'NA',
  ].map((p): [string, string] => [p, p]),
]);

/**
 * Patronymic markers: the name after one is the father's. Two names whose parts sit on different
 * sides of the marker (`SALMAN BIN MUHAMMAD` / `MUHAMMAD BIN SALMAN`) are different people.
 */
export const PATRONYMIC_MARKERS = new Set(['BIN', 'BINT', 'OULD']);

/**
 * Titles, honorifics and forms of address that are not also family names (`King`, `Prince` and
 * `Major` are). A leading one is dropped by the normaliser; elsewhere (`SADUDDIN MULLAH SAYYED`)
 * it weighs as little as a particle.
 */
export const TITLES = new Set([
  'MR', 'MRS', 'MS', 'MISS', 'MX', 'DR', 'PROF', 'PROFESSOR', 'SIR', 'DAME', 'REV', 'REVEREND', 'HON', 'HONORABLE',
  'HONOURABLE', 'MME', 'MLLE', 'HERR', 'FRAU', 'MESSRS', 'DOCTOR', 'MADAME', 'MONSIEUR', 'SENOR', 'SENORA', 'SHEIKH',
  'SHAIKH', 'SHEIK', 'SHAYKH', 'SHEKH', 'MULLAH', 'MULLA', 'MAULAVI', 'MAWLAWI', 'MAULVI', 'MOLVI', 'HAJI', 'HAJJI', 'QARI',
  'MUFTI', 'AYATOLLAH', 'HOJATOLESLAM', 'GEN', 'COL', 'CAPT', 'LT', 'SGT', 'ADM', 'CMDR',
]);

/** Titles the normaliser drops at the start of a name (forms of address, never a given name). */
export const LEADING_HONORIFICS = new Set([
  'MR', 'MRS', 'MS', 'MISS', 'MX', 'DR', 'PROF', 'PROFESSOR', 'SIR', 'DAME', 'LORD', 'LADY', 'REV', 'REVEREND', 'HON',
  'HONORABLE', 'HONOURABLE', 'MME', 'MLLE', 'HERR', 'FRAU', 'MESSRS', 'DOCTOR', 'MADAME', 'MONSIEUR', 'SENOR', 'SENORA',
  'PRESIDENT',
]);

/** Generational suffixes: a trailing `, Jr.` is not the given-name part of `LAST, First`. */
export const GENERATIONAL = new Set(['JR', 'SR', 'II', 'III', 'IV', 'V', 'JNR', 'SNR']);

/**
 * Generic words of organisation names: what a company does or is, where and how big. Two
 * organisations sharing only such words share little; one word of them replaced by another
 * (`Gas` / `Oil`) is still a different organisation.
 */
export const GENERIC_ORG_WORDS = new Set([
  'TRADING', 'TRADE', 'TRADERS', 'INTERNATIONAL', 'GLOBAL', 'GROUP', 'HOLDING', 'HOLDINGS', 'ENTERPRISE', 'ENTERPRISES',
  'INDUSTRIES', 'INDUSTRIAL', 'INDUSTRY', 'SERVICES', 'SERVICE', 'SOLUTIONS', 'TECHNOLOGY', 'TECHNOLOGIES', 'TECH',
  'LOGISTICS', 'SHIPPING', 'IMPORT', 'EXPORT', 'GENERAL', 'UNITED', 'NATIONAL', 'DEVELOPMENT', 'MANAGEMENT', 'PARTNERS',
  'ASSOCIATES', 'INVESTMENT', 'INVESTMENTS', 'CAPITAL', 'VENTURES', 'COMMERCIAL', 'AGENCY', 'SYSTEMS', 'FOUNDATION', 'BANK',
  'BANKING', 'FINANCE', 'FINANCIAL', 'CONSTRUCTION', 'ENGINEERING', 'ENERGY', 'MARINE', 'MARITIME', 'PETROLEUM', 'OIL', 'GAS',
  'EXCHANGE', 'WORLDWIDE', 'OVERSEAS', 'EAST', 'WEST', 'NORTH', 'SOUTH', 'MIDDLE', 'ASIA', 'EUROPE', 'AMERICA', 'AFRICA', 'NEW',
  'FIRST', 'PRIVATE', 'PUBLIC', 'JOINT', 'STOCK', 'TRUST', 'FUND', 'SECURITIES', 'INSURANCE', 'MOTOR', 'MOTORS', 'ELECTRONICS',
  'CHEMICAL', 'CHEMICALS', 'PHARMACEUTICAL', 'PHARMACEUTICALS', 'AIRLINES', 'AIRWAYS', 'AVIATION', 'TRANSPORT', 'RESOURCES',
  'MINING', 'METALS', 'STEEL', 'POWER', 'ELECTRIC', 'TELECOM', 'COMMUNICATIONS', 'MEDIA', 'CONSULTING', 'PROPERTIES',
  'REAL', 'ESTATE', 'BUSINESS', 'CENTER', 'CENTRE', 'OFFICE', 'ORGANIZATION', 'ORGANISATION', 'ASSOCIATION', 'INSTITUTE',
  'COMMITTEE', 'COUNCIL', 'MINISTRY', 'DEPARTMENT', 'GOVERNMENT', 'AUTHORITY', 'COMMISSION', 'UNION', 'FRONT', 'MOVEMENT',
  'PARTY', 'ARMY', 'BRIGADE', 'BATTALION', 'FORCES', 'FORCE', 'LIMITED', 'CORPORATION', 'COMPANY', 'BROTHERS', 'SONS',
  'BANCO', 'BANQUE', 'BANCA', 'COMPANIA', 'COMPAGNIE', 'COMPAGNIA', 'GRUPO', 'GRUPPE', 'GROUPE', 'INDUSTRIAS', 'SERVICIOS',
  'SOCIEDAD', 'SOCIETE', 'INTERNACIONAL', 'NACIONAL', 'TRADING', 'GENERALE', 'HANDEL', 'HANDELS',
]);

/**
 * Words that only organisations have in their names: a name with one of them (or a legal form) is
 * compared as an organisation's when the caller does not say what the party is.
 */
export const ORG_INDICATORS = new Set([
  'COMPANY', 'CORPORATION', 'BANK', 'BANKING', 'GROUP', 'HOLDING', 'HOLDINGS', 'TRADING', 'INDUSTRIES', 'INDUSTRY', 'SERVICES',
  'SOLUTIONS', 'TECHNOLOGIES', 'TECHNOLOGY', 'LOGISTICS', 'SHIPPING', 'ENTERPRISES', 'ENTERPRISE', 'INTERNATIONAL', 'MINISTRY',
  'ORGANIZATION', 'ORGANISATION', 'ASSOCIATION', 'FOUNDATION', 'INSTITUTE', 'COMMITTEE', 'COUNCIL', 'DEPARTMENT', 'GOVERNMENT',
  'AUTHORITY', 'COMMISSION', 'AGENCY', 'UNION', 'FRONT', 'MOVEMENT', 'PARTY', 'ARMY', 'BRIGADE', 'BATTALION', 'FORCES',
  'UNIVERSITY', 'FUND', 'TRUST', 'SECURITIES', 'INSURANCE', 'AIRLINES', 'AIRWAYS', 'AVIATION', 'PETROLEUM', 'ELECTRONICS',
  'CONSTRUCTION', 'ENGINEERING', 'INVESTMENT', 'INVESTMENTS', 'CAPITAL', 'PARTNERS', 'VENTURES', 'MOTORS', 'MOTOR', 'SYSTEMS',
  'ESTABLISHMENT', 'OFFICE', 'CENTER', 'CENTRE', 'NETWORK', 'PLATFORMS', 'MARITIME', 'MARINE', 'NAVIGATION', 'TANKER',
  'BANCO', 'BANQUE', 'BANCA', 'COMPANIA', 'COMPAGNIE', 'GRUPO', 'GRUPPE', 'GROUPE', 'SOCIEDAD', 'SOCIETE',
]);
