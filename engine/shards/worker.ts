import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { holdsKanji, kanjiReaderReady, loadKanjiReader } from '../names/kanji.js';
import { ShardGeneration, type ShardOptions } from './shard-data.js';
import type { Control, FromShard, Query, QueryResult } from './protocol.js';

setFlagsFromString('--expose-gc');
/** A full collection of this thread's heap (V8's `gc`, taken from a context created with it exposed). */
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * A shard: holds its part of every live generation and answers batched queries. The coordinator
 * drops a generation once no query needs it any more.
 */
const port = parentPort!;
const options = workerData as ShardOptions;
const generations = new Map<number, ShardGeneration>();

function send(msg: FromShard): void {
  port.postMessage(msg);
}

function answer(q: Query): QueryResult {
  const g = generations.get(q.gen);
  if (!g) return { qid: q.qid, ids: [], sims: [], kinds: [], error: `generation ${q.gen} is not loaded` };
  try {
    switch (q.op) {
      case 'fuzzy':
        return g.fuzzy(q);
      case 'id':
        return g.idMatches(q);
      case 'regex':
        return g.regex(q);
      case 'name':
        return g.screenNames(q);
      case 'names':
        return g.screenNamesBulk(q);
    }
  } catch (e) {
    return { qid: q.qid, ids: [], sims: [], kinds: [], error: (e as Error).message };
  }
}

type Message = Control | { t: 'query'; batch: Query[] };

/** A name to read holds kanji: its batch waits for the Japanese reader (`engine/names/kanji.ts`). */
function needsKanjiReader(msg: Message): boolean {
  if (msg.t !== 'query' || kanjiReaderReady()) return false;
  return msg.batch.some((q) => {
    if (q.op === 'name') return holdsKanji(q.name);
    if (q.op === 'names') return q.names.some(holdsKanji);
    return q.op === 'fuzzy' && holdsKanji(q.q);
  });
}

/**
 * Messages held behind a batch waiting for the Japanese reader, in order (a `drop` must not
 * overtake the queries of its generation); null when nothing waits.
 */
let backlog: Promise<void> | null = null;

port.on('message', (msg: Message) => {
  if (backlog === null && !needsKanjiReader(msg)) {
    handle(msg);
    return;
  }
  const waiting = (backlog ?? Promise.resolve())
    .then(() => (needsKanjiReader(msg) ? loadKanjiReader() : true))
    .then(() => handle(msg));
  backlog = waiting;
  void waiting.then(() => {
    if (backlog === waiting) backlog = null;
  });
});

function handle(msg: Message): void {
  if (msg.t === 'query') {
    send({ t: 'results', results: msg.batch.map(answer) });
    return;
  }
  try {
    switch (msg.t) {
      case 'begin':
        generations.set(msg.gen, new ShardGeneration(options, msg.columns, msg.partitions));
        send({ t: 'done', seq: msg.seq });
        break;
      case 'add':
        generations.get(msg.gen)!.add(msg.ids, msg.parties, msg.features);
        send({ t: 'done', seq: msg.seq });
        break;
      case 'finish': {
        const keys = generations.get(msg.gen)!.finish();
        send({ t: 'done', seq: msg.seq, keys });
        break;
      }
      case 'table': {
        const table = generations.get(msg.gen)!.exactTable(msg.sets);
        // The last step of a build: the load's garbage is collected now, before the generation
        // serves. Left to V8, a shard's heap of hundreds of MB was marked in steps over the first
        // half second of queries, with a final pause of up to 163 ms: at 1.08M names,
        // `/screen/name`'s p99 went from 20.4 to 6.7 ms with this collection (~0.55 s a shard).
        collectGarbage();
        send({ t: 'done', seq: msg.seq, table });
        break;
      }
      case 'drop':
        generations.delete(msg.gen);
        send({ t: 'done', seq: msg.seq });
        break;
      case 'ping':
        send({ t: 'done', seq: msg.seq });
        break;
    }
  } catch (e) {
    send({ t: 'done', seq: msg.seq, error: (e as Error).stack ?? String(e) });
  }
}
