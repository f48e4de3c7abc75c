/**
 * Korean names written in Chinese characters (hanja, `金正恩`), read as Hangul syllables and then
 * romanized as `hangul.ts` writes Korean names (`KIM JONG UN`). The table holds the Sino-Korean
 * reading of the characters common in Korean surnames and given names (general knowledge of the
 * language, not names of the lists), in the North's spelling with its initial R and N (`李` 리,
 * `龍` 룡), as the DPRK entries of the UN and OFAC lists write them; `hangul.ts` adds the South's
 * customary spellings of surnames (`리`: `LEE`, `YI`).
 */
/** Surnames. */
const SURNAMES =
  '金김李리朴박崔최鄭정姜강趙조尹윤張장林림韓한吳오申신徐서權권黃황安안宋송柳류洪홍全전高고文문梁량孫손' +
  '裵배白백許허劉류南남沈심盧로河하丁정成성車차具구郭곽禹우朱주任임羅라辛신閔민兪유池지玄현陳진嚴엄元원' +
  '千천方방孔공康강咸함卞변廉렴楊양邊변呂려秋추魯로都도石석蘇소愼신馬마薛설吉길延연魏위表표明명奇기房방' +
  '潘반王왕琴금玉옥陸륙印인孟맹諸제卓탁秦진蔣장魚어殷은太태';
/** Syllables of given names. */
const GIVEN =
  '正정恩은日일哲철浩호永영英영秀수洙수民민珉민俊준賢현鉉현炫현鎬호東동仁인在재載재寅인光광國국基기泰태' +
  '勝승承승昌창相상尙상植식世세宗종鍾종鐘종允윤智지志지敏민慧혜惠혜淑숙順순貞정姬희熙희喜희希희美미愛애' +
  '子자淳순男남龍룡虎호鎭진鎮진振진眞진珍진錫석碩석煥환桓환奎규圭규九구求구根근槿근斗두德덕道도萬만晩만' +
  '武무範범炳병秉병丙병福복鳳봉富부先선善선宣선聖성星성松송守수壽수水수昇승時시信신實실心심陽양良량亮량' +
  '麗려連련烈렬禮례祿록容용勇용用용雨우宇우旭욱雲운雄웅源원遠원月월偉위有유裕유潤윤胤윤銀은乙을義의益익' +
  '一일逸일才재宰재典전喆철天천忠충七칠澤택弼필夏하學학漢한海해憲헌赫혁革혁峴현亨형炯형馨형昊호和화華화' +
  '孝효勳훈薰훈輝휘興흥奉봉寧녕泳영榮영暎영映영完완旺왕堯요溶용佑우友우祐우郁욱棟동敦돈得득來래洛락蘭란' +
  '立립仙선誠성小소昭소素소浚준埈준峻준駿준重중中중芝지至지燦찬贊찬昶창彰창澈철淸청清청春춘致치弦현協협' +
  '好호豪호弘홍化화會회厚후訓훈欽흠禧희起기琪기紀기同동冬동周주柱주珠주準준仲중知지辰진鐵철泉천台태八팔' +
  '平평必필鶴학翰한恒항幸행香향紅홍活활大대三삼博박雪설主주吉길日일革혁哲철植식範범';

const pairs = (table: string) => table.match(/\p{Script=Han}\p{Script=Hangul}/gu)!.map((p) => [...p]);
const SURNAME = new Set(pairs(SURNAMES).map(([ch]) => ch));
const HANJA = new Map<string, string>(pairs(SURNAMES + GIVEN).map(([ch, syllable]) => [ch, syllable]));

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The name in Hangul (`金正恩` → `김정은`, words kept apart), or null when a letter is not a
 * character of the table or the name does not start with a surname, as Korean names are written
 * (`美珍 林`, given name first, is no Korean name read so: it met the vessel `MI RIM`).
 */
export function hanjaReading(value: string): string | null {
  const name = value.normalize('NFKC').trim();
  if (!SURNAME.has(String.fromCodePoint(name.codePointAt(0) ?? 0))) return null;
  const words: string[] = [];
  for (const [word] of name.matchAll(WORD)) {
    let hangul = '';
    for (const ch of word) {
      const syllable = HANJA.get(ch);
      if (syllable === undefined) return null;
      hangul += syllable;
    }
    words.push(hangul);
  }
  return words.length > 0 ? words.join(' ') : null;
}
