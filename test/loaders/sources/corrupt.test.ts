import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { EntityRecord } from '../../../engine/model.js';
import { parseListFromDir } from '../../../loaders/registry.js';
import { sharedData } from '../../../harness/paths.js';

/** Damaged copies of real source files: every one must be rejected with its file and line. */

async function drain(it: AsyncIterable<EntityRecord>): Promise<number> {
  let n = 0;
  for await (const _ of it) n++;
  return n;
}

let dir: string;

function layout(files: Record<string, Buffer | string>): string {
  const root = mkdtempSync(join(dir, 'src-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** 1-based line of a byte offset in a text. */
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'loaders-corrupt-'));
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('OFAC CSV', () => {
  const sdn = readFileSync(sharedData('ofac', 'sdn.csv'), 'latin1');
  const ofacFiles = (sdnText: string) => ({
    'ofac/sdn.csv': sdnText,
    'ofac/add.csv': readFileSync(sharedData('ofac', 'add.csv')),
    'ofac/alt.csv': readFileSync(sharedData('ofac', 'alt.csv')),
  });

  test('a file cut inside a quoted field: unterminated quote, with file and line', async () => {
    const at = sdn.indexOf('"DOB 1', sdn.length / 2) + 10;
    const root = layout(ofacFiles(sdn.slice(0, at)));
    await assert.rejects(drain(parseListFromDir('ofac_sdn', root)), (err: Error) => {
      assert.match(err.message, /^sdn\.csv: line \d+: malformed CSV: Quote Not Closed/);
      assert.equal(Number(/line (\d+)/.exec(err.message)![1]), lineAt(sdn, at));
      return true;
    });
  });

  test('a row with a missing column is rejected at its line', async () => {
    const lines = sdn.split('\n');
    lines[41] = lines[41].replace(/,-0- \r$/, '\r');
    const root = layout(ofacFiles(lines.join('\n')));
    await assert.rejects(drain(parseListFromDir('ofac_sdn', root)), /sdn\.csv: line 42: expected 12 columns, found 11/);
  });

  test('a file cut after a field separator: wrong column count at the last line', async () => {
    const at = sdn.indexOf(',"CUBA",', sdn.length / 3) + 8;
    const root = layout(ofacFiles(sdn.slice(0, at)));
    await assert.rejects(
      drain(parseListFromDir('ofac_sdn', root)),
      new RegExp(`sdn\\.csv: line ${lineAt(sdn, at)}: expected 12 columns, found 5`),
    );
  });

  test('a missing required file names the file key', async () => {
    const root = layout({ 'ofac/sdn.csv': sdn });
    await assert.rejects(drain(parseListFromDir('ofac_sdn', root)), /ofac_sdn: source file 'add' is missing/);
  });
});

describe('XML', () => {
  const un = readFileSync(sharedData('un', 'consolidated.xml'), 'utf8');

  test('a truncated UN file: unexpected end, with file and line', async () => {
    const at = Math.floor(un.length / 2);
    const root = layout({ 'un/consolidated.xml': un.slice(0, at) });
    await assert.rejects(drain(parseListFromDir('un_sc', root)), (err: Error) => {
      assert.match(err.message, /^consolidated\.xml: line \d+: XML not well-formed .*unclosed tag/);
      assert.equal(Number(/line (\d+)/.exec(err.message)![1]), lineAt(un, at));
      return true;
    });
  });

  test('a mismatched closing tag is rejected at its line', async () => {
    const at = un.indexOf('</SECOND_NAME>', un.length / 3);
    const broken = `${un.slice(0, at)}</THIRD_NAME>${un.slice(at + '</SECOND_NAME>'.length)}`;
    const root = layout({ 'un/consolidated.xml': broken });
    await assert.rejects(
      drain(parseListFromDir('un_sc', root)),
      new RegExp(`consolidated\\.xml: line ${lineAt(un, at)}: XML not well-formed`),
    );
  });

  test('an empty file and a file of another format are rejected', async () => {
    await assert.rejects(
      drain(parseListFromDir('un_sc', layout({ 'un/consolidated.xml': '' }))),
      /consolidated\.xml: line 1: /,
    );
    const other = '<?xml version="1.0"?>\n<sdnList><sdnEntry/></sdnList>\n';
    await assert.rejects(
      drain(parseListFromDir('un_sc', layout({ 'un/consolidated.xml': other }))),
      /consolidated\.xml: line 2: .*unexpected root element <sdnList>/,
    );
  });
});

describe('text and YAML lists', () => {
  test('a YAML item with broken indentation is rejected at its line', async () => {
    const yaml = readFileSync(sharedData('web', 'cryptoscamdb-urls.yaml'), 'utf8').split('\n');
    yaml[5000] = `${yaml[5000]}\n   : bad: [`;
    const root = layout({ 'web/cryptoscamdb-urls.yaml': yaml.join('\n') });
    await assert.rejects(
      drain(parseListFromDir('cryptoscamdb', root)),
      /cryptoscamdb-urls\.yaml: line 500\d: malformed YAML/,
    );
  });

  test('text at the top level of the YAML sequence is rejected', async () => {
    const root = layout({ 'web/cryptoscamdb-urls.yaml': '---\n- name: a.com\n  url: http://a.com\n<html>\n' });
    await assert.rejects(
      drain(parseListFromDir('cryptoscamdb', root)),
      /cryptoscamdb-urls\.yaml: line 4: unexpected top-level text/,
    );
  });

  test('an HTML error page instead of a one-per-line list is rejected', async () => {
    const root = layout({
      'email/disposable-domains.txt': 'a.com\nb.com\n<html><body>502 Bad Gateway</body></html>\n',
    });
    await assert.rejects(
      drain(parseListFromDir('disposable_email', root)),
      /disposable-domains\.txt: line 3: unexpected text/,
    );
  });

  test('a missing per-asset address file fails the OFAC crypto list', async () => {
    const root = layout({});
    mkdirSync(join(root, 'crypto', 'by-chain-2024'), { recursive: true });
    for (const a of ['XBT', 'ETH']) {
      const name = `sanctioned_addresses_${a}.txt`;
      copyFileSync(sharedData('crypto', 'by-chain-2024', name), join(root, 'crypto', 'by-chain-2024', name));
    }
    await assert.rejects(drain(parseListFromDir('ofac_crypto', root)), /ofac_crypto: source file 'USDT' is missing/);
  });
});
