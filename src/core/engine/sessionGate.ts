import type { EngineEvent } from '../engineEvents';
import type { Correlator } from '../correlator';
import type { WorkspaceMatcher } from '../discovery';

/** What the gate asks of the engine, at each use: the correlator, matcher and readers are rebuilt by a reconfigure. */
export interface SessionGateHost {
  scope(): 'workspace' | 'all';
  correlator(): Correlator;
  matcher(): WorkspaceMatcher;
  /** The session's history is not all indexed yet. */
  historyPending(sessionId: string): boolean;
  /** A session not shown: its files are no longer followed and its facts dropped. */
  drop(sessionId: string): Promise<void>;
  clockNow(): number;
  emit(e: EngineEvent): void;
}

/**
 * Which sessions the views see: all (scope `all`), or those whose cwd matches the workspace, each
 * shown once its history is indexed. Live events of a session not decided yet wait here and go out
 * when it is shown.
 */
export class SessionGate {
  /** Per session: true once its cwd is known to match, false when known not to. */
  private readonly visible = new Map<string, boolean>();
  /** Live events of sessions not yet known to match, shown if they turn out to. */
  private readonly undecided = new Map<string, EngineEvent[]>();
  /** Sessions whose cwd is being checked (a tick and a change notification may both ask). */
  private readonly deciding = new Set<string>();

  constructor(private readonly host: SessionGateHost) {}

  /** True: shown; false: known not to be; undefined: not decided yet. */
  shown(sessionId: string): boolean | undefined {
    return this.visible.get(sessionId);
  }

  /** A session known not to be shown (its cwd matches no folder): nothing of it is kept. Returns false when already decided. */
  markForeign(sessionId: string): boolean {
    if (this.visible.has(sessionId)) return false;
    this.visible.set(sessionId, false);
    this.undecided.delete(sessionId);
    return true;
  }

  /** A session the engine let go (idle): decided afresh if it comes back. */
  forget(sessionId: string): void {
    this.visible.delete(sessionId);
    this.undecided.delete(sessionId);
  }

  clear(): void {
    this.visible.clear();
    this.undecided.clear();
  }

  /**
   * Decides which sessions the views see. `only`: just that session (a file of it was indexed);
   * undefined: a session not known yet (an older agent transcript): every session.
   */
  async settle(only?: string): Promise<void> {
    const now = this.host.clockNow();
    if (only !== undefined) {
      if (this.host.correlator().has(only)) await this.settleSession(only, now);
      return;
    }
    for (const id of this.host.correlator().sessionIds()) if (!this.visible.has(id)) await this.settleSession(id, now);
    for (const id of this.undecided.keys()) if (!this.host.correlator().has(id)) this.undecided.delete(id);
    if (this.visible.size > 10_000) {
      for (const [id, shown] of this.visible) if (!shown && !this.host.correlator().has(id)) this.visible.delete(id);
    }
  }

  private async settleSession(id: string, now: number): Promise<void> {
    if (this.visible.has(id) || this.deciding.has(id)) return;
    let shown: boolean;
    if (this.host.scope() === 'all') shown = true;
    else {
      const cwd = this.host.correlator().cwdOf(id);
      if (cwd === undefined) return;
      this.deciding.add(id);
      try {
        shown = await this.host.matcher().matchesCwd(cwd);
      } finally {
        this.deciding.delete(id);
      }
    }
    if (this.visible.has(id)) return;
    // Shown once its history is indexed: until then, which of its calls are held is not known.
    if (shown && this.host.historyPending(id)) return;
    this.visible.set(id, shown);
    const buffered = this.undecided.get(id) ?? [];
    this.undecided.delete(id);
    if (!shown) {
      await this.host.drop(id);
      return;
    }
    this.announce(id, now, buffered);
  }

  /**
   * A session becomes visible: its session event, its calls held since before
   * we looked (history), then the live events it had while undecided. A live
   * `held` whose record turned out to be in the history indexed since (the
   * hook's event landed after the history end, the record before it) is not
   * held: it is left out.
   */
  private announce(sessionId: string, now: number, buffered: EngineEvent[]): void {
    const correlator = this.host.correlator();
    const emit = (e: EngineEvent) => this.host.emit(e);
    const ev = correlator.sessionEvent(sessionId, now);
    if (ev) emit(ev);
    const heldNow = correlator.heldEvents(sessionId);
    const stillHeld = new Set(heldNow.map((e) => (e.event === 'held' ? e.tool_use_id : '')));
    const writtenLive = new Set(buffered.map((e) => (e.event === 'written' ? e.tool_use_id : '')));
    const announced = new Set(buffered.map((e) => (e.event === 'held' ? e.tool_use_id : '')));
    for (const held of heldNow) if (held.event === 'held' && !announced.has(held.tool_use_id)) emit(held);
    for (const e of buffered) {
      if (e.event === 'session') continue;
      if (e.event === 'held' && !stillHeld.has(e.tool_use_id) && !writtenLive.has(e.tool_use_id)) continue;
      emit(e);
    }
  }

  /** Live events: out at once for a session shown, kept for one not decided yet, dropped for one not shown. */
  deliver(events: EngineEvent[]): void {
    for (const e of events) {
      const shown = this.visible.get(e.session_id);
      if (shown === true) this.host.emit(e);
      else if (shown === undefined) {
        let list = this.undecided.get(e.session_id);
        if (!list) this.undecided.set(e.session_id, (list = []));
        // Bounded: a session that never shows its cwd must not grow this without end. One
        // whose history is being indexed keeps all: that ends, and what it buffers is its live events.
        if (list.length < 1000 || this.host.historyPending(e.session_id)) list.push(e);
      }
    }
  }
}
