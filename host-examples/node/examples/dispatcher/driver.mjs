// The dispatcher: a thin driver of the delivery engine (docs/engine.md). The
// engine decides everything (admission, sends, retries, holds, probes,
// wakes, the window's edge, dead letters, the journal's records, drain);
// this file only moves its actions to I/O (#act: a batch's journal lines are
// on disk, one fdatasync, before any of its sends starts) and their ends
// back as inputs. Inputs that arrive together are fed in ONE crossing; time
// is the wall clock plus the offset, never fed smaller than before. The
// engine bounds the open events (their retry waits included) by its
// `max_open` (= `concurrency`): each batch offers, after its inputs, the
// admissions those inputs may free, in the same crossing; what the engine
// refuses `at_capacity` (it changed nothing) is offered again, first, in a
// later batch. Each admission comes no earlier than its pace allows
// (admission-pace.mjs: --rate, --deadline-ms).

/** Logs the first of a kind, then every 1000th (an outage fails every call). */
export function rateLimited(log, what) {
  let n = 0;
  return (line) => {
    n += 1;
    if (n === 1 || n % 1000 === 0) log(`${what} (${n} so far): ${line}`);
  };
}

export class Driver {
  #engine;
  #journal;
  #sender;
  #store;
  #metrics;
  #log;
  #concurrency;
  #nextEvent;
  #clockOffsetMs;
  #lastMs = 0;
  #queue = [];
  #scheduled = false;
  #timer = null;
  #pace; // an AdmissionPace or null: admit whenever there is room
  #admitTimer = null; // wakes the driver at the next paced admission
  #refused = []; // events the engine refused at_capacity, in order: offered again before nextEvent()'s
  #exhausted = false; // nextEvent() returned null
  #open = new Set(); // event ids admitted or resumed, not yet ended
  #sends = new Map(); // `${event_id}/${attempt}` -> attempt number, while the HTTP attempt runs
  #calls = 0; // store calls out
  #admitting = true; // false after drain() or --deadline-ms
  #draining = false;
  #swapping = null; // an artifact swap waiting for the old engine's `drained`: () => a new DeliveryEngine
  #done = null; // resolves {how} once
  #finished;
  #journalError;
  /** The run's tallies (from the engine's actions). */
  stopReasons = new Map();
  admitted = 0;
  resumed = 0;
  crossings = 0;
  held = 0;

  /**
   * engine: a DeliveryEngine opened with `max_open` = `concurrency` (the
   * bound on open events is the engine's: docs/engine.md section 1; so is
   * every engine a swap's `open()` returns); journal: a JournalFile or null; sender: a
   * Sender; store: a StoreCaller or null (the engine's memory store);
   * nextEvent(): the next event to admit ({event_id, endpoint_id, target,
   * class}), or null: admit nothing more; pace: an AdmissionPace (when
   * the k-th event may be admitted, k = this.admitted) or null.
   */
  constructor({ engine, journal = null, sender, store = null, metrics, log, concurrency, nextEvent, clockOffsetMs = 0, pace = null }) {
    this.#engine = engine;
    this.#journal = journal;
    this.#sender = sender;
    this.#store = store;
    this.#metrics = metrics;
    this.#log = log;
    this.#concurrency = concurrency;
    this.#nextEvent = nextEvent;
    this.#clockOffsetMs = clockOffsetMs;
    this.#pace = pace;
    this.#journalError = rateLimited(log, 'journal write failed');
    this.#finished = new Promise((resolve) => (this.#done = resolve));
  }

  /** The engine's time: wall clock + offset, never smaller than a time already fed. */
  nowMs() {
    this.#lastMs = Math.max(this.#lastMs, Date.now() + this.#clockOffsetMs);
    return this.#lastMs;
  }

  /** Events open now (admitted or resumed, not ended). */
  get open() {
    return this.#open.size;
  }

  /**
   * Resume from a journal's bytes (before any admission): `own` the
   * --store file's (a torn tail is cut there), else another journal whose
   * open events are copied into ours (`copy`, when we journal). Returns the
   * engine's refusal ({error, message}) or null.
   */
  resume(bytes, { own, copy = false }) {
    const now = this.nowMs();
    const answer = own
      ? this.#cross(() => this.#engine.resume(now, bytes))
      : this.#cross(() => this.#engine.feed([{ op: 'resume', now_ms: now, journal: bytes.toString('utf8'), copy }]));
    if (answer.errors.length > 0) return answer.errors[0];
    this.#act(answer, { own });
    return null;
  }

  /** Start: admit and run until every event ended (or `drain()`); resolves {how: 'finished'|'drained'|'deadline', abandoned}. */
  run() {
    this.#schedule();
    return this.#finished;
  }

  /** SIGTERM/SIGINT: feed `drain`; after `drainMs` whatever still runs is abandoned. */
  drain(drainMs) {
    if (this.#draining) return;
    this.#draining = true;
    this.#admitting = false;
    clearTimeout(this.#admitTimer);
    if (this.#swapping === null) this.#input({ op: 'drain' }); // else the engine drains already (a swap): its `drained` ends the run
    const t = setTimeout(() => this.#end('deadline'), drainMs);
    this.#finished.then(() => clearTimeout(t));
  }

  /**
   * A new artifact (docs/engine.md section 11): admit nothing, drain the
   * engine, and once it is `drained` resume its `snapshot` in the engine
   * `open()` makes (on the new artifact), then go on there.
   */
  swapArtifact(open) {
    if (this.#done === null || this.#draining) return;
    const first = this.#swapping === null;
    this.#swapping = open; // a later swap before this one ends: its engine is the one opened
    if (first) this.#input({ op: 'drain' });
  }

  /** Close the HTTP agents. */
  close() {
    clearTimeout(this.#timer);
    clearTimeout(this.#admitTimer);
    this.#sender.close();
  }

  #input(input) {
    this.#queue.push(input);
    this.#schedule();
  }

  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  #cross(f) {
    this.crossings += 1;
    return f();
  }

  /**
   * One batch, one crossing: what arrived, then admissions for the free
   * places plus one for each input (any of them may stop an event); the
   * engine's max_open refuses those no input freed.
   */
  #pump() {
    if (this.#done === null) return;
    const now = this.nowMs();
    const inputs = this.#queue.splice(0).map((i) => ({ ...i, now_ms: now }));
    let room = this.#concurrency - this.#open.size + inputs.length;
    const added = new Set(); // ids this batch's admissions opened (an id already open, e.g. resumed, is not theirs)
    while (room > 0 && this.#toAdmit() && this.#swapping === null && this.#admissionDue()) {
      const ev = this.#nextAdmission();
      if (ev === null) break;
      if (!this.#open.has(ev.event_id)) added.add(ev.event_id);
      this.#open.add(ev.event_id);
      this.admitted += 1;
      inputs.push({ op: 'admit', now_ms: now, ...ev });
      room -= 1;
    }
    let refused = 0;
    if (inputs.length > 0) {
      const answer = this.#cross(() => this.#engine.feed(inputs));
      for (const e of answer.errors) {
        const input = inputs[e.index];
        if (input.op === 'admit') { // a refused admission changed nothing in the engine: undo only what it did here
          if (added.has(input.event_id)) this.#open.delete(input.event_id);
          this.admitted -= 1;
        }
        if (input.op === 'admit' && e.error === 'at_capacity') { // offered with inputs that freed no place: offered again, silently
          const { op, now_ms, ...ev } = input;
          this.#refused.splice(refused++, 0, ev); // in order, before those not offered yet
          continue;
        }
        this.#log(`engine refused ${input.op}${input.event_id === undefined ? '' : ` ${input.event_id}`}: ${e.error}: ${e.message}`);
      }
      this.#act(answer);
    }
    // More events stopped than were offered a place (a tick that ends several): admit into the rest now.
    if (room <= 0 && refused === 0 && this.#toAdmit() && this.#swapping === null && this.#open.size < this.#concurrency) this.#schedule();
    if (!this.#draining && !this.#toAdmit() && this.#open.size === 0 && this.#sends.size === 0 && this.#calls === 0 && this.#queue.length === 0) {
      this.#end('finished');
    }
  }

  /** The next event to offer: a refused one first, else the source's next (null: none left). */
  #nextAdmission() {
    if (this.#refused.length > 0) return this.#refused.shift();
    if (this.#exhausted) return null;
    const ev = this.#nextEvent();
    this.#exhausted = ev === null;
    return ev;
  }

  /** Is an event still to be admitted (the source's, or one refused at_capacity)? */
  #toAdmit() {
    return this.#admitting && (this.#refused.length > 0 || !this.#exhausted);
  }

  /** May the next event be admitted now? Else the pace's timer is armed, or admitting ends (the deadline). */
  #admissionDue() {
    if (this.#pace === null) return true;
    const wait = this.#pace.wait(this.admitted, performance.now());
    if (wait === 0) return true;
    if (wait === null) {
      this.#admitting = false;
      return false;
    }
    clearTimeout(this.#admitTimer);
    this.#admitTimer = setTimeout(() => {
      this.#admitTimer = null;
      this.#schedule();
    }, wait);
    return false;
  }

  /** Act on every output in order; a batch's journal lines are on disk before its sends start. */
  #act(answer, { own = true } = {}) {
    const lines = [];
    const sends = [];
    for (const o of answer.outputs) {
      switch (o.action) {
        case 'journal':
          lines.push(o.line);
          break;
        case 'journal_truncate':
          if (own) this.#journal?.truncate(o.keep_bytes);
          break;
        case 'journal_compact':
          // The lines before it in this batch are in the compacted text.
          lines.length = 0;
          try {
            this.#journal?.replace(o.journal);
          } catch (e) {
            this.#journalError(e.message);
          }
          break;
        case 'send':
          sends.push(o);
          break;
        case 'store_call':
          this.#call(o);
          break;
        case 'delivered':
          this.#ended(o.event_id, 'delivered');
          break;
        case 'dead_letter':
          this.#ended(o.dead_letter.event_id, o.dead_letter.stop_reason);
          break;
        case 'count':
          this.#metrics.inc(o.name, o.label ?? {}, o.delta);
          break;
        case 'gauge':
          this.#metrics.gauge(o.name, o.value);
          if (o.name === 'webhook_held_events') this.held = o.value;
          break;
        case 'warn':
          this.#log(`engine: ${o.event_id == null ? '' : `${o.event_id}: `}${o.message}`);
          break;
        case 'resumed':
          for (const id of o.ids) {
            if (!this.#open.has(id)) this.resumed += 1;
            this.#open.add(id);
          }
          break;
        case 'drained':
          if (this.#swapping !== null && !this.#draining) this.#afterDrain = () => this.#takeOver();
          else this.#end('drained');
          break;
        default: // hold, replayed: counted through `count`
      }
    }
    const written = lines.length > 0 && this.#journal !== null ? this.#journal.append(lines).catch((e) => this.#journalError(e.message)) : null;
    for (const s of sends) this.#send(s, written);
    this.#arm(answer.timeout_ms);
    const after = this.#afterDrain;
    this.#afterDrain = null;
    after?.();
  }

  #afterDrain = null;

  /** The swap's second half: the old engine's snapshot resumed by the new one (its events already open here). */
  #takeOver() {
    const open = this.#swapping;
    this.#swapping = null;
    const old = this.#engine;
    const answer = this.#cross(() => old.feed([{ op: 'snapshot', now_ms: this.nowMs() }]));
    const snap = answer.outputs.find((o) => o.action === 'snapshot');
    if (snap === undefined) {
      this.#log(`artifact swap: no snapshot (${answer.errors[0]?.message ?? 'no answer'}); the run ends here, its events pending in the journal`);
      this.#end('drained');
      return;
    }
    let fresh;
    try {
      fresh = open();
    } catch (e) {
      this.#log(`artifact swap: the new engine could not be opened (${e.message}); the run ends here, its events pending in the journal`);
      this.#end('drained');
      return;
    }
    this.#engine = fresh;
    old.close();
    const resumed = this.#cross(() => fresh.feed([{ op: 'resume', now_ms: this.nowMs(), journal: snap.journal }]));
    for (const e of resumed.errors) this.#log(`artifact swap: the new engine refused the snapshot: ${e.message}`);
    const moved = resumed.outputs.find((o) => o.action === 'resumed')?.ids.length ?? 0;
    this.#log(`artifact swap: the new artifact's engine resumed the old one's snapshot (${moved} open events)`);
    this.#act(resumed);
    this.#schedule();
  }

  /** The engine in use (a swap replaces it). */
  get engine() {
    return this.#engine;
  }

  #ended(id, reason) {
    this.#open.delete(id);
    this.stopReasons.set(reason, (this.stopReasons.get(reason) ?? 0) + 1);
  }

  async #send(s, written) {
    const key = `${s.event_id}/${s.attempt}`;
    this.#sends.set(key, s.attempt);
    if (written !== null) await written;
    if (!this.#sends.has(key)) return; // the run ended (the drain's deadline) while its record was synced
    const result = await this.#sender.attempt(s);
    if (!this.#sends.delete(key)) return; // abandoned at the drain's deadline
    this.#input({ op: 'result', event_id: s.event_id, attempt: s.attempt, ...result });
  }

  async #call(c) {
    if (this.#store === null) {
      this.#log(`engine asked for store call ${c.call_id} with its memory store`);
      return;
    }
    this.#calls += 1;
    const fields = await this.#store.answer(c);
    this.#calls -= 1;
    if (this.#done !== null) this.#input({ op: 'store', call_id: c.call_id, ...fields });
  }

  #arm(timeoutMs) {
    clearTimeout(this.#timer);
    this.#timer = null;
    if (timeoutMs === null || timeoutMs === undefined || this.#done === null) return;
    this.#timer = setTimeout(() => this.#input({ op: 'tick' }), Math.max(0, timeoutMs - this.nowMs()));
  }

  #end(how) {
    if (this.#done === null) return;
    const done = this.#done;
    this.#done = null;
    clearTimeout(this.#timer);
    clearTimeout(this.#admitTimer);
    const abandoned = { first: 0, retry: 0 };
    for (const attempt of this.#sends.values()) abandoned[attempt === 1 ? 'first' : 'retry'] += 1;
    this.#sends.clear();
    done({ how, abandoned });
  }
}
