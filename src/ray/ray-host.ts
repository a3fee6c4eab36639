// The Ray feature's state in the window, created by its host bundle (host.ts, dist/ray-host.js)
// on first use: the clusters the user connected, one ClusterMonitor + Poller each (one request
// in flight, fast while the view is visible, slow when hidden, backoff on errors), the Ray tree
// view, the stall warning in the status bar, and per-job log output channels.
import * as vscode from 'vscode';
import type { Logger } from '../base/log';
import type { ConfigChecker } from '../feature-api/config-checker';
import type { ClusterSnapshot } from './cluster/cluster-model';
import { normalizeDashboardUrl, tailLogs, type LogTail } from './api/client';
import { ClusterMonitor } from './cluster/monitor';
import { Poller } from './cluster/poller';
import type { RelayStop } from './cluster/relay-reaper';
import { collectStacks, type CollectedStacks } from './diagnostics/collect';
import type { PausedTask } from './paused/paused';
import { pausedTitle } from './paused/attach-config';
import { PausedWatch, pausedPort, refreshWithPaused } from './paused/watch';
import { RayTree } from './tree';

/** Stacks taken of a job (on demand or when it was flagged stalled), or why they could not be. */
export interface StacksTaken {
  at: number;
  result?: CollectedStacks;
  error?: string;
}

const SAVED_KEY = 'agentrl.ray.connected';

export interface ClusterEntry {
  monitor: ClusterMonitor;
  poller: Poller;
  requests: number;
  /** Tasks paused at a breakpoint() or post-mortem, read on the refresh within its budget. */
  paused: PausedWatch;
}

export class RayHost implements vscode.Disposable {
  readonly clusters = new Map<string, ClusterEntry>();
  readonly tree: RayTree;
  readonly view: vscode.TreeView<unknown>;
  private readonly status: vscode.StatusBarItem;
  private readonly tails = new Map<string, { tail: LogTail; channel: vscode.OutputChannel; text: string }>();
  private readonly disposables: vscode.Disposable[] = [];
  private visible = false;
  /** Fired after every refresh of any cluster (tests and the bench wait on it). */
  readonly onDidRefresh = new vscode.EventEmitter<ClusterSnapshot>();
  /** Per `<cluster>|<job>`: the last stacks taken. */
  readonly stacks = new Map<string, StacksTaken>();
  /** Stalled jobs → when their stacks were last taken: again after each threshold the stall lasts
   *  (a stall flagged while the run was still starting up shows its later state too). */
  private readonly stallStacks = new Map<string, number>();
  /** Fired when stacks of a job were taken (the tree shows them; tests wait on it). */
  readonly onDidTakeStacks = new vscode.EventEmitter<{ cluster: string; id: string; taken: StacksTaken }>();

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly log: Logger,
    /** The config engine (a config to submit is checked first). */
    readonly checker: () => ConfigChecker,
    /** The Ray view, created by activate.ts with a provider that delegates to `tree`. */
    view: vscode.TreeView<unknown>,
  ) {
    this.tree = new RayTree(
      () => [...this.clusters.values()].map((c) => c.monitor.snapshot),
      (cluster, id) => this.stacks.get(`${cluster}|${id}`),
      (cluster) => this.clusters.get(cluster)?.paused.paused ?? [],
      (cluster) => this.clusters.get(cluster)?.paused.unsupported ?? false,
    );
    this.view = view;
    this.status = vscode.window.createStatusBarItem('agentrl.ray.stall', vscode.StatusBarAlignment.Left, 50);
    this.status.command = 'agentrl.ray.focus';
    this.visible = this.view.visible;
    this.disposables.push(
      this.status,
      this.onDidRefresh,
      this.onDidTakeStacks,
      this.onDidPause,
      this.view.onDidChangeVisibility((e) => {
        this.visible = e.visible;
        for (const c of this.clusters.values()) c.poller.setVisible(e.visible);
      }),
      vscode.debug.onDidStartDebugSession((d) => {
        const k = sessionKey(d.configuration);
        if (k) this.sessions.set(d.id, k);
      }),
      vscode.debug.onDidTerminateDebugSession((d) => {
        if (!this.sessions.delete(d.id)) return;
        // the task went on (or ended): its row goes at the next refresh, made now
        for (const c of this.clusters.values()) {
          c.paused.soon();
          c.poller.now();
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('agentrl.ray')) this.syncConfigured();
      }),
    );
    this.syncConfigured();
    for (const s of context.workspaceState.get<Array<{ url: string; name?: string }>>(SAVED_KEY) ?? []) this.add(s.url, s.name);
  }

  private settings() {
    const c = vscode.workspace.getConfiguration('agentrl.ray');
    return {
      clusters: c.get<Array<{ name?: string; url: string }>>('clusters') ?? [],
      stallMinutes: c.get<number>('stallMinutes') ?? 0,
      refreshSeconds: c.get<number>('refreshSeconds') ?? 3,
      packageLimitMB: c.get<number>('packageLimitMB') ?? 100,
      rayPath: c.get<string>('rayPath') || 'ray',
    };
  }

  settingsSnapshot() {
    return this.settings();
  }

  private stallOptions() {
    const m = this.settings().stallMinutes;
    return m > 0 ? { thresholdMs: m * 60_000 } : {};
  }

  private syncConfigured() {
    for (const c of this.settings().clusters) if (c?.url) this.add(c.url, c.name);
    for (const c of this.clusters.values()) c.monitor.setStallOptions(this.stallOptions());
  }

  /** Adds (or returns) a cluster; starts polling it. */
  add(url: string, name?: string): ClusterEntry {
    const existing = this.clusters.get(normalizeDashboardUrl(url));
    if (existing) {
      if (name) existing.monitor.snapshot.name = name;
      return existing;
    }
    const entry = {} as ClusterEntry;
    entry.requests = 0;
    entry.monitor = new ClusterMonitor({
      url,
      name,
      stall: this.stallOptions(),
      onRequest: () => entry.requests++,
      onRelayStopped: (s, err) => this.relayStopped(entry, s, err),
    });
    entry.paused = new PausedWatch(pausedPort(entry.monitor.client));
    const refreshMs = Math.max(1, this.settings().refreshSeconds) * 1000;
    entry.poller = new Poller(
      async () => {
        try {
          // paused tasks: the worker table at most every 10 s while a job runs (the view's budget)
          const fresh = await refreshWithPaused(entry.monitor, entry.paused);
          if (fresh.length) this.pausedAppeared(entry, fresh);
        } finally {
          this.afterRefresh(entry.monitor.snapshot);
        }
      },
      { visibleMs: refreshMs, hiddenMs: Math.max(60_000, refreshMs * 20) },
    );
    this.clusters.set(entry.monitor.client.url, entry);
    entry.poller.setVisible(this.visible);
    entry.poller.now();
    return entry;
  }

  /** Each orphaned relay is logged once; a failed stop is retried on the next poll, warned once. */
  private relayStopped(entry: ClusterEntry, s: RelayStop, err?: Error) {
    const url = entry.monitor.client.url;
    if (!err) {
      this.log.info(`ray: stopped relay ${s.relay} on ${url}: its run ${s.run} ${s.reason === 'run-gone' ? 'is gone' : 'has ended'}`);
      entry.poller.now(); // the tree shows it stopping without waiting for the next interval
    } else if (!this.relayStopFailures.has(s.relay)) {
      this.relayStopFailures.add(s.relay);
      this.log.warn(`ray: could not stop relay ${s.relay} on ${url} (run ${s.run} ${s.reason === 'run-gone' ? 'is gone' : 'has ended'}): ${err.message}`);
    }
  }

  private readonly relayStopFailures = new Set<string>();

  /** Debug sessions attached to paused tasks: session id → `<worker>:<port>`. */
  private readonly sessions = new Map<string, string>();
  /** Fired when tasks newly paused were seen (tests wait on it). */
  readonly onDidPause = new vscode.EventEmitter<{ cluster: string; tasks: PausedTask[] }>();

  /** Whether a debug session is attached to that paused task. */
  debugging(_cluster: string, t: Pick<PausedTask, 'worker_id' | 'port'>): boolean {
    return [...this.sessions.values()].includes(`${t.worker_id}:${t.port}`);
  }

  /** A task newly paused: a notification with Attach (one for several at once). */
  private pausedAppeared(entry: ClusterEntry, fresh: PausedTask[]) {
    const url = entry.monitor.client.url;
    this.onDidPause.fire({ cluster: url, tasks: fresh });
    const todo = fresh.filter((t) => !this.debugging(url, t));
    if (!todo.length) return;
    const t = todo[0];
    const attachButton = vscode.l10n.t('Attach Debugger');
    const text =
      todo.length === 1
        ? t.post_mortem
          ? vscode.l10n.t('Ray task {0} raised and is paused post-mortem (job {1}).', pausedTitle(t), t.job ?? '?')
          : vscode.l10n.t('Ray task {0} is paused at a breakpoint (job {1}).', pausedTitle(t), t.job ?? '?')
        : vscode.l10n.t('{0} Ray tasks are paused, {1} first.', String(todo.length), pausedTitle(t));
    void vscode.window.showInformationMessage(text, attachButton).then((b) => {
      if (b === attachButton) void vscode.commands.executeCommand('agentrl.ray.attach', { cluster: url, job: t.job, task: t });
    });
  }

  async remember(url: string, name?: string): Promise<void> {
    const saved = (this.context.workspaceState.get<Array<{ url: string; name?: string }>>(SAVED_KEY) ?? []).filter((s) => s.url !== url);
    saved.push({ url, name });
    await this.context.workspaceState.update(SAVED_KEY, saved);
  }

  async remove(url: string): Promise<void> {
    const c = this.clusters.get(url);
    c?.poller.stop();
    this.clusters.delete(url);
    for (const k of [...this.stacks.keys(), ...this.stallStacks.keys()]) {
      if (k.startsWith(`${url}|`)) {
        this.stacks.delete(k);
        this.stallStacks.delete(k);
      }
    }
    const saved = (this.context.workspaceState.get<Array<{ url: string }>>(SAVED_KEY) ?? []).filter((s) => s.url !== url);
    await this.context.workspaceState.update(SAVED_KEY, saved);
    this.tree.refresh();
  }

  get(url?: string): ClusterEntry | undefined {
    if (url) return this.clusters.get(url) ?? [...this.clusters.values()].find((c) => c.monitor.snapshot.name === url);
    return this.clusters.size === 1 ? [...this.clusters.values()][0] : undefined;
  }

  /** Refreshes one cluster now and resolves with its snapshot (errors resolve too: see .error). */
  refreshNow(url: string): Promise<ClusterSnapshot> {
    const c = this.clusters.get(url);
    if (!c) return Promise.reject(new Error(`not connected: ${url}`));
    return new Promise((resolve) => {
      const sub = this.onDidRefresh.event((s) => {
        if (s.url === url) {
          sub.dispose();
          resolve(s);
        }
      });
      c.poller.now();
    });
  }

  /** Takes the stacks of a job's processes (all its actors and driver, or one actor) through the dashboard. */
  async takeStacks(cluster: string, id: string, only?: string): Promise<StacksTaken> {
    const c = this.clusters.get(cluster);
    if (!c) throw new Error(`not connected: ${cluster}`);
    let taken: StacksTaken;
    try {
      const job = await c.monitor.client.job(id);
      taken = { at: Date.now(), result: await collectStacks(c.monitor.client, job, { only }) };
    } catch (e) {
      taken = { at: Date.now(), error: (e as Error).message };
    }
    if (!only) this.stacks.set(`${cluster}|${id}`, taken);
    this.tree.refresh();
    this.onDidTakeStacks.fire({ cluster, id, taken });
    return taken;
  }

  /** A run flagged stalled gets its stacks taken, shown under it in the view; again after each
   *  threshold it stays stalled. */
  private stacksOnStall(s: ClusterSnapshot) {
    for (const key of [...this.stallStacks.keys()]) if (key.startsWith(`${s.url}|`) && !s.stalls[key.slice(s.url.length + 1)]) this.stallStacks.delete(key);
    const now = Date.now();
    for (const [id, stall] of Object.entries(s.stalls)) {
      const key = `${s.url}|${id}`;
      const last = this.stallStacks.get(key);
      if (last !== undefined && now - last < stall.thresholdMs) continue;
      this.stallStacks.set(key, now);
      this.log.info(`ray: ${id} on ${s.url} is stalled: taking the stacks of its processes`);
      void this.takeStacks(s.url, id).then((t) => {
        if (t.error) this.log.warn(`ray: could not take the stacks of ${id}: ${t.error}`);
      });
    }
  }

  private afterRefresh(s: ClusterSnapshot) {
    this.tree.refresh();
    if (this.clusters.has(s.url)) this.stacksOnStall(s);
    const stalled = [...this.clusters.values()].flatMap((c) => Object.keys(c.monitor.snapshot.stalls).map((id) => ({ id, c: c.monitor.snapshot })));
    if (stalled.length) {
      const first = stalled[0];
      const r = first.c.stalls[first.id];
      this.status.text = `$(warning) ${vscode.l10n.t('Ray run stalled: {0}', first.id)}`;
      this.status.tooltip = vscode.l10n.t(
        'No metrics, log lines or rollouts for {0} min (threshold {1} min)',
        (r.stalledForMs / 60_000).toFixed(1),
        (r.thresholdMs / 60_000).toFixed(1),
      );
      this.status.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.status.show();
    } else this.status.hide();
    this.onDidRefresh.fire(s);
  }

  /** Streams a job's log into its own output channel. */
  showLogs(cluster: string, id: string): vscode.OutputChannel {
    const c = this.clusters.get(cluster);
    if (!c) throw new Error(`not connected: ${cluster}`);
    const key = `${cluster}|${id}`;
    const open = this.tails.get(key);
    if (open) {
      open.channel.show(true);
      return open.channel;
    }
    const channel = vscode.window.createOutputChannel(`Ray job ${id}`);
    const entry = { channel, text: '' } as { tail: LogTail; channel: vscode.OutputChannel; text: string };
    const tail = tailLogs(
      c.monitor.client,
      id,
      (t) => {
        channel.append(t);
        entry.text = (entry.text + t).slice(-65536);
      },
      (err) => {
        if (err) channel.appendLine(`\n[agentrl] ${vscode.l10n.t('log stream ended: {0}', err.message)}`);
        else channel.appendLine(`\n[agentrl] ${vscode.l10n.t('the job has ended')}`);
      },
    );
    entry.tail = tail;
    this.tails.set(key, entry);
    channel.show(true);
    return channel;
  }

  /** The last 64 KiB streamed into a job's output channel (tests; the channel itself is write-only). */
  streamedLog(cluster: string, id: string): string | undefined {
    return this.tails.get(`${cluster}|${id}`)?.text;
  }

  dispose(): void {
    for (const c of this.clusters.values()) c.poller.stop();
    for (const t of this.tails.values()) {
      t.tail.close();
      t.channel.dispose();
    }
    for (const d of this.disposables) d.dispose();
  }
}

/** `<worker>:<port>` of a session attached to a paused task (its configuration's rayTask). */
function sessionKey(c: vscode.DebugConfiguration): string | undefined {
  const t = (c as { rayTask?: { worker?: unknown; port?: unknown } }).rayTask;
  return typeof t?.worker === 'string' && typeof t.port === 'number' ? `${t.worker}:${t.port}` : undefined;
}
