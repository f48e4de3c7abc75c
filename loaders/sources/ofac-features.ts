/**
 * OFAC "features" of a listed party: digital currency addresses, e-mail addresses, websites and
 * identity documents. The legacy CSV files write them as `; `-separated items of the remarks
 * (`Passport 123 (Egypt)`, `alt. Digital Currency Address - XBT 1...`); SDN.XML writes the same
 * type names in `<idType>` and the number in `<idNumber>`. Both parsers classify them here.
 */

export type OfacFeature =
  | { kind: 'crypto'; symbol: string; value: string }
  | { kind: 'email'; value: string }
  | { kind: 'website'; value: string }
  | { kind: 'document'; documentType: string; value: string; country: string | null; details: string | null }
  | { kind: 'alias'; aliasType: string; value: string }
  /** Facts about the party itself, for its party record only. */
  | { kind: 'birth_date'; value: string }
  | { kind: 'nationality'; value: string }
  /** An identifier that is no government document (a vessel's IMO number). */
  | { kind: 'identifier'; identifierType: string; value: string };

/**
 * Identity and registration documents issued by a government (or a public registry), as OFAC
 * names their types. Identifiers that are not government-issued (IMO and MMSI numbers, D-U-N-S,
 * SWIFT/BIC, LEI) and non-identifiers (phone numbers, dates) are deliberately absent.
 */
export const OFAC_DOCUMENT_TYPES: readonly string[] = [
  'Passport',
  'Diplomatic Passport',
  'Passport Booklet',
  'Stateless Person Passport',
  'Refugee ID Card',
  'National ID No.',
  'National Foreign ID Number',
  'Personal ID Card',
  'Identification Number',
  'Cedula No.',
  "Citizen's Card Number",
  'Tazkira National ID Card',
  'Kenyan ID No.',
  'Turkish Identification Number',
  'Numero de Identidad',
  'D.N.I.',
  'C.U.R.P.',
  'C.U.R.P. #',
  'C.U.I.P.',
  'C.U.I.',
  'C.U.I.T.',
  'I.F.E.',
  'Credencial electoral',
  'Electoral Registry No.',
  'Cartilla de Servicio Militar Nacional',
  "Driver's License No.",
  'Pilot License Number',
  'Residency Number',
  'Birth Certificate Number',
  'Travel Document Number',
  'Immigration No.',
  'VisaNumberID',
  'SSN',
  'LE Number',
  'RTN',
  'Tax ID No.',
  'NIT #',
  'R.F.C.',
  'R.F.C. #',
  'RFC',
  'RUC #',
  'RIF #',
  'C.I.F.',
  'US FEIN',
  'Italian Fiscal Code',
  'V.A.T. Number',
  'Registration Number',
  'Registration ID',
  'Business Registration Number',
  'Business Registration Document #',
  'Business Number',
  'Company Number',
  'UK Company Number',
  'Commercial Registry Number',
  'Chamber of Commerce Number',
  'Certificate of Incorporation Number',
  'Public Registration Number',
  'Government Gazette Number',
  'Folio Mercantil No.',
  'Matricula Mercantil No',
  'Trade License No.',
  'Enterprise Number',
  'Unified Social Credit Code (USCC)',
  'United Social Credit Code Certificate (USCCC)',
  'Dubai Chamber of Commerce Membership No.',
  'Registered Charity No.',
  'Branch Unit Number',
  'File Number',
  'SRE Permit No.',
  'Afghan Money Service Provider License Number',
];

const DOCUMENT_TYPES_LONGEST_FIRST = [...OFAC_DOCUMENT_TYPES].sort((a, b) => b.length - a.length);

const CRYPTO = /^Digital Currency Address - ([A-Za-z0-9]+)[:\s]\s*(\S+)/;
const EMAIL = /^(?:Email Address|E-?mail)\s*:?\s*(\S+@\S+)/i;
const WEBSITE = /^Website\s*:?\s*(\S+)/i;
/** Older entries write `http://www.x.org (website)` and `info@x.org (email)`, or the bare value. */
const TRAILING_KIND = /^(\S+)\s+\((website|email)\)$/i;
const BARE_EMAIL = /^[^\s@'"]+@[^\s@'"]+\.[A-Za-z]{2,}\.?$/;
const BARE_WEBSITE = /^(?:https?:\/\/|www\.)\S+$/i;
const ALIAS = /^([afn]\.k\.a\.),?\s+'(.+)'$/i;
const DOB = /^DOB\s+(.+)$/i;
const NATIONALITY = /^(?:nationality|citizen)\s+(.+)$/i;
const VESSEL_ID = /^(Vessel Registration Identification)\s+(.+)$/i;

function clean(value: string): string {
  return value.trim().replace(/[.,;]+$/, '');
}

/**
 * Splits `123 (Egypt) issued 01 Jan 2010` into number, issuing country and the rest; a number
 * followed by words (`OR801168 and Kuwaiti National ID No. ...`, `4117921 issued under the name
 * ...`) ends before them.
 */
function splitDocument(rest: string): { value: string; country: string | null; details: string | null } {
  const paren = rest.indexOf(' (');
  const words = /\s+(issued|expires?|valid|and|under)\b/i.exec(rest);
  if (paren >= 0 && (!words || words.index > paren)) {
    const close = rest.indexOf(')', paren);
    if (close > paren) {
      const after = rest.slice(close + 1).trim();
      return {
        value: clean(rest.slice(0, paren)),
        country: rest.slice(paren + 2, close).trim() || null,
        details: after || null,
      };
    }
  }
  if (words)
    return { value: clean(rest.slice(0, words.index)), country: null, details: rest.slice(words.index).trim() };
  return { value: clean(rest), country: null, details: null };
}

function isVesselNumber(value: string): boolean {
  return /^IMO\b/i.test(value);
}

/** Classifies one remarks item of the legacy CSV (`alt.` prefix allowed); null when none of ours. */
export function parseRemarkItem(raw: string): OfacFeature | null {
  const item = raw.trim().replace(/^alt\.\s+/i, '');
  let m = CRYPTO.exec(item);
  if (m) return { kind: 'crypto', symbol: m[1].toUpperCase(), value: clean(m[2]) };
  m = EMAIL.exec(item);
  if (m) return { kind: 'email', value: clean(m[1]) };
  m = WEBSITE.exec(item);
  if (m) return { kind: 'website', value: clean(m[1]) };
  m = TRAILING_KIND.exec(item.replace(/\.$/, ''));
  if (m) return { kind: m[2].toLowerCase() === 'email' ? 'email' : 'website', value: clean(m[1]) };
  if (BARE_EMAIL.test(item)) return { kind: 'email', value: clean(item) };
  if (BARE_WEBSITE.test(item)) return { kind: 'website', value: clean(item) };
  m = ALIAS.exec(item.replace(/\.$/, ''));
  if (m) return { kind: 'alias', aliasType: m[1].toLowerCase(), value: m[2].trim() };
  m = DOB.exec(item);
  if (m) return { kind: 'birth_date', value: m[1].trim() };
  m = NATIONALITY.exec(item);
  if (m) return { kind: 'nationality', value: clean(m[1]) };
  m = VESSEL_ID.exec(item);
  if (m) return { kind: 'identifier', identifierType: m[1], value: clean(m[2]) };
  for (const type of DOCUMENT_TYPES_LONGEST_FIRST) {
    if (item.length > type.length && item.startsWith(type) && item[type.length] === ' ') {
      const doc = splitDocument(item.slice(type.length + 1));
      if (!doc.value || isVesselNumber(doc.value)) return null;
      return { kind: 'document', documentType: type, ...doc };
    }
  }
  return null;
}

/** Classifies one `<id>` of SDN.XML (type, number and country given separately). */
export function classifyIdEntry(idType: string, idNumber: string, idCountry: string): OfacFeature | null {
  const type = idType.trim();
  const number = idNumber.trim();
  if (!number) return null;
  const crypto = /^Digital Currency Address - ([A-Za-z0-9]+)$/.exec(type);
  if (crypto) return { kind: 'crypto', symbol: crypto[1].toUpperCase(), value: clean(number) };
  if (/^(Email Address|E-?mail)$/i.test(type)) return { kind: 'email', value: clean(number) };
  if (/^Website$/i.test(type)) return { kind: 'website', value: clean(number) };
  if (/^Vessel Registration Identification$/i.test(type))
    return { kind: 'identifier', identifierType: type, value: clean(number) };
  if (!OFAC_DOCUMENT_TYPES.includes(type) || isVesselNumber(number)) return null;
  return {
    kind: 'document',
    documentType: type,
    value: clean(number),
    country: idCountry.trim() || null,
    details: null,
  };
}

/** Splits OFAC's remarks text into items. The trailing period closes the last item only. */
export function remarkItems(remarks: string): string[] {
  return remarks
    .trim()
    .replace(/\.$/, '')
    .split(/;\s+/)
    .filter((s) => s.length > 0);
}

/** OFAC writes several programmes of one entry as `SDGT] [IRGC`. */
export function splitPrograms(program: string): string[] {
  return program
    .split(/\]\s*\[/)
    .map((p) => p.replace(/^\[|\]$/g, '').trim())
    .filter((p) => p.length > 0);
}

export function ofacDetailsUrl(entNum: string): string {
  return `https://sanctionssearch.ofac.treas.gov/Details.aspx?id=${encodeURIComponent(entNum)}`;
}
