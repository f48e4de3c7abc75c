/**
 * Numbers written out in names (`Brigade Forty-Four`, `First`, `1st`, `XII`) → their digits, so
 * that the spelled-out, ordinal, Roman and digit forms of one number are one token. English
 * number words from general knowledge.
 */

const UNITS = [
  'ZERO',
  'ONE',
  'TWO',
  'THREE',
  'FOUR',
  'FIVE',
  'SIX',
  'SEVEN',
  'EIGHT',
  'NINE',
  'TEN',
  'ELEVEN',
  'TWELVE',
  'THIRTEEN',
  'FOURTEEN',
  'FIFTEEN',
  'SIXTEEN',
  'SEVENTEEN',
  'EIGHTEEN',
  'NINETEEN',
];
const TENS = ['', '', 'TWENTY', 'THIRTY', 'FORTY', 'FIFTY', 'SIXTY', 'SEVENTY', 'EIGHTY', 'NINETY'];
const ORDINAL_UNITS = [
  'ZEROTH',
  'FIRST',
  'SECOND',
  'THIRD',
  'FOURTH',
  'FIFTH',
  'SIXTH',
  'SEVENTH',
  'EIGHTH',
  'NINTH',
  'TENTH',
  'ELEVENTH',
  'TWELFTH',
  'THIRTEENTH',
  'FOURTEENTH',
  'FIFTEENTH',
  'SIXTEENTH',
  'SEVENTEENTH',
  'EIGHTEENTH',
  'NINETEENTH',
];
const ORDINAL_TENS = [
  '',
  '',
  'TWENTIETH',
  'THIRTIETH',
  'FORTIETH',
  'FIFTIETH',
  'SIXTIETH',
  'SEVENTIETH',
  'EIGHTIETH',
  'NINETIETH',
];

/** Number word → value; tens words are marked so that a following unit adds to them. */
const WORDS = new Map<string, { value: number; tens: boolean }>();
UNITS.forEach((w, i) => WORDS.set(w, { value: i, tens: false }));
ORDINAL_UNITS.forEach((w, i) => WORDS.set(w, { value: i, tens: false }));
TENS.forEach((w, i) => w && WORDS.set(w, { value: 10 * i, tens: true }));
ORDINAL_TENS.forEach((w, i) => w && WORDS.set(w, { value: 10 * i, tens: true }));

const ROMAN = /^(?=[IVXLC]{2,})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$/;
const ROMAN_LETTER = /^[IVX]$/;
const ROMAN_VALUES: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100 };
const ORDINAL_DIGITS = /^(\d+)(ST|ND|RD|TH)$/;

function romanValue(t: string): number {
  let v = 0;
  for (let i = 0; i < t.length; i++) {
    const cur = ROMAN_VALUES[t[i]];
    const nextValue = i + 1 < t.length ? ROMAN_VALUES[t[i + 1]] : 0;
    v += cur < nextValue ? -cur : cur;
  }
  return v;
}

/** One edit apart (substitution, insertion or deletion): `FOURTY` is `FORTY`. Compared in place: most tokens are not. */
function oneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // After the first difference: the rest equal, with one character of a, of b, or of both skipped.
  const skipA = la >= lb ? 1 : 0;
  const skipB = lb >= la ? 1 : 0;
  for (let k = i; k + skipA < la; k++) if (a.charCodeAt(k + skipA) !== b.charCodeAt(k + skipB)) return false;
  return true;
}

const TENS_WORDS = TENS.filter(Boolean);

/**
 * A number word as written, or a tens word misspelled by one letter (`FOURTY`): other words one
 * letter from a number are names (`STEVEN`).
 */
function numberWord(t: string): { value: number; tens: boolean } | undefined {
  const exact = WORDS.get(t);
  if (exact || t.length < 5) return exact;
  for (const w of TENS_WORDS) if (oneEdit(t, w)) return WORDS.get(w);
  return undefined;
}

/**
 * Tokens with number words and ordinals replaced by digits; a tens word and the unit after it
 * (`FORTY FOUR`, `FORTY 4`) make one number. With `roman` (organisations' and vessels' names:
 * fund vintages, ship numbers) Roman numerals too, single letters only as the last token (`Fund
 * V`): in people's names `XI`, `LI` and `VI` are names and single letters initials. Tokens
 * without numbers come back as they are.
 */
export function numberTokens(tokens: string[], roman: boolean): string[] {
  let out: string[] | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    let value: number | null = null;
    let used = 1;
    const word = numberWord(t);
    if (word) {
      value = word.value;
      if (word.tens && i + 1 < tokens.length) {
        const next = tokens[i + 1];
        const unit = /^[1-9]$/.test(next) ? Number(next) : numberWord(next);
        const unitValue =
          typeof unit === 'number' ? unit : unit && !unit.tens && unit.value > 0 && unit.value < 10 ? unit.value : 0;
        if (unitValue) {
          value += unitValue;
          used = 2;
        }
      }
    } else if (roman && (ROMAN.test(t) || (i === tokens.length - 1 && i > 0 && ROMAN_LETTER.test(t))))
      value = romanValue(t);
    else {
      const ordinal = ORDINAL_DIGITS.exec(t);
      if (ordinal) value = Number(ordinal[1]);
    }
    if (value === null) {
      out?.push(t);
      continue;
    }
    out ??= tokens.slice(0, i);
    out.push(String(value));
    i += used - 1;
  }
  return out ?? tokens;
}
