// The metrics feature's state in the window, created by the host bundle (host.ts,
// dist/metrics-host.js) on first use: the store, the relay connections feeding the view
// controller, the panel and the status bar. src/metrics/activate.ts (in the activation bundle)
// only registers the commands that load it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RAY_WATCH_METRICS } from '../feature-api/commands';
import type { Logger } from '../base/log';
import type { EndpointStatus } from './protocol/view-protocol';
import { ConnectionTiming, Connections, DEFAULT_TIMING, ENVELOPE_BUCKETS, ENVELOPE_MIN_BYTES } from './connect/connections';
import { ENDPOINTS_SETTING, resolveEndpoints } from './endpoints';
import { exportPng, exportSeriesTo } from './export-files';
import { relayLauncher } from './connect/local-relay';
import { toExperienceViewDetail } from './view/experience-detail';
import { tasksStrings } from './tasks-strings';
import type { References } from '../tasks/reference-answers';
import { jobReferences } from '../tasks/taskset-references';
import { attachPanel, createPanel } from './panel';
import { MetricsStatusBar } from './status-bar';
import { summarize, type StatusSummary } from './view/status-model';
import { MetricsStore } from './store/store';
import { uiStrings } from './strings';
import { ViewController } from './view/view-controller';
import { TrainingRunTokenizers } from './tokens/run-tokenizer';
import { experienceTokenView } from './tokens/experience-tokens';
import type { ConfigChecker } from '../feature-api/config-checker';
import { PipelineLinks } from './pipeline-links';
import type { RescoreResult } from './protocol/rescore';

const SHOW_COMMAND = 'agentrl.metrics.show';
/** Debug This Rollout: `{endpoint, source, id}` of an experience (src/metrics/replay-flows.ts). */
const DEBUG_ROLLOUT_COMMAND = 'agentrl.metrics.debugRollout';
/** Re-score: `{endpoint, steps: [a, b], ask?}`, resolves with the RescoreResult (src/metrics/replay-flows.ts). */
const RESCORE_COMMAND = 'agentrl.metrics.rescore';
const OPTIONS_KEY = 'agentrl.metrics.viewOptions';
const FLUSH_MS = 2000;

export interface MetricsHostOptions {
  /** Connection timing (tests shorten it). */
  timing?: Partial<ConnectionTiming>;
  relayArgs?: string[];
  /** The config engine (extension.ts hands it over): where a key is written, whether a quick fix holds. */
  configChecker?: () => ConfigChecker;
}

export class MetricsHost implements vscode.Disposable {
  readonly store: MetricsStore;
  readonly controller: ViewController;
  readonly connections: Connections;
  readonly statusBar: MetricsStatusBar;
  private panel: vscode.WebviewPanel | undefined;
  private panelSubs: vscode.Disposable | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private readonly flushTimer: NodeJS.Timeout;
  private statusTimer: NodeJS.Timeout | undefined;
  private lastStatus: StatusSummary | undefined;
  private disposed = false;

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly log: Logger,
    opts: MetricsHostOptions = {},
  ) {
    const dir = path.join((context.storageUri ?? context.globalStorageUri).fsPath, 'metrics');
    const mb = vscode.workspace.getConfiguration('agentrl.metrics').get<number>('memoryLimitMB', 256);
    this.store = new MetricsStore({ dir, memoryLimitBytes: Math.max(16, mb) * 1024 * 1024, log });
    this.connections = new Connections(
      relayLauncher({ cli: context.asAbsolutePath(path.join('dist', 'agentrl.js')), log, extraArgs: opts.relayArgs }),
      (endpoint) => this.store.cursors(endpoint),
      log,
      {
        timing: { ...DEFAULT_TIMING, ...opts.timing },
        retryText: (ms) => vscode.l10n.t('retrying in {0} s', (ms / 1000).toFixed(1)),
        envelope: { buckets: ENVELOPE_BUCKETS, minBytes: ENVELOPE_MIN_BYTES },
      },
    );
    const connections = this.connections;
    const tokenizers = new TrainingRunTokenizers();
    /** The reference answers of each local job dir's run (the Tasks view's reference check), read once. */
    const references = new Map<string, References>();
    const links = new PipelineLinks(connections, opts.configChecker, log);
    this.controller = new ViewController(
      this.store,
      {
        post: (m) => void this.panel?.webview.postMessage(m),
        readDetail: (endpoint, q) => connections.requestDetail(endpoint, q),
        readExperience: async (ref) => toExperienceViewDetail(ref, await connections.requestExperience(ref.endpoint, ref.source, ref.id)),
        readTokens: async (ref) =>
          experienceTokenView(
            await connections.requestTokens(ref.endpoint, ref.source, ref.id),
            tokenizers.get(connections.localDir(ref.endpoint)),
            vscode.l10n,
          ),
        pipeline: links,
        // The flows are commands (src/metrics/replay-flows.ts, registered by activate.ts): scripts and tests run them too.
        rescore: async (endpoint, steps, ask) => vscode.commands.executeCommand<RescoreResult | undefined>(RESCORE_COMMAND, { endpoint, steps, ask }),
        tasks: {
          strings: tasksStrings(),
          l10n: vscode.l10n,
          sources: () => connections.experienceSources(),
          readTasks: (endpoint, source) => connections.requestTasks(endpoint, source),
          // read once per job dir: a taskset does not change while its run goes
          references: (endpoint) => {
            const dir = connections.localDir(endpoint);
            if (dir === undefined) return undefined;
            if (!references.has(dir)) references.set(dir, jobReferences(dir));
            return references.get(dir);
          },
          readResponse: async (endpoint, source, id) => {
            const text = (await connections.requestExperience(endpoint, source, id)).response_text;
            return typeof text === 'string' ? text : undefined;
          },
        },
      },
      log,
      uiStrings(),
      context.workspaceState.get(OPTIONS_KEY),
      vscode.l10n,
    );
    const controller = this.controller;
    // The connections' data goes straight into the view controller, the store's one writer.
    connections
      .on('points', (endpoint, b) => {
        links.runEndpoints.set(b.run, endpoint);
        controller.ingest(endpoint, b);
      })
      .on('experiences', (endpoint, m) => controller.ingestExperiences(endpoint, m))
      .on('envelope', (endpoint, m) => {
        links.runEndpoints.set(m.run, endpoint);
        controller.ingestEnvelope(endpoint, m);
      })
      .on('changed', () => this.onStatus())
      // The feature that made the connection brings its relay back, as a new connection that
      // replaces this one (commands are how features talk: none imports another).
      .on(
        'gone',
        (spec) =>
          void RAY_WATCH_METRICS.run(vscode.commands, { ...spec.revive!.args, replaces: spec.id }).catch((e: unknown) =>
            log.warn(`metrics: could not bring ${spec.name} back: ${e instanceof Error ? e.message : String(e)}`),
          ),
      );
    controller
      .on('options', (o) => void context.workspaceState.update(OPTIONS_KEY, o))
      .on('exportSeries', (format, keys) => void exportSeriesTo(this.store, keys, format, undefined, log))
      .on('exportPng', (chart, dataUrl) => void exportPng(chart, dataUrl, undefined, log))
      .on('command', (c) => void vscode.commands.executeCommand(c === 'demo' ? 'agentrl.metrics.startDemo' : 'agentrl.metrics.connect'))
      .on('debugRollout', (ref) => void vscode.commands.executeCommand(DEBUG_ROLLOUT_COMMAND, ref))
      .on('data', () => this.scheduleStatus());
    this.statusBar = new MetricsStatusBar(SHOW_COMMAND);
    this.flushTimer = setInterval(() => this.store.flush(), FLUSH_MS);
    this.subs.push(
      this.statusBar,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(ENDPOINTS_SETTING)) void this.reconnect();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.reconnect()),
    );
    void this.reconnect();
    this.scheduleStatus();
  }

  /** Applies the endpoint list (settings + saved connections); none in an untrusted workspace. */
  async reconnect(): Promise<void> {
    if (this.disposed) return;
    const specs = await resolveEndpoints(this.context.workspaceState, this.context.secrets, (m) => this.log.warn(m));
    if (!vscode.workspace.isTrusted) {
      await this.connections.set([]);
      this.untrusted = specs.map((s) => ({
        id: s.id,
        name: s.name,
        target: s.url ?? s.local?.dir ?? '',
        kind: s.local ? 'local' : 'url',
        state: 'stopped',
        detail: vscode.l10n.t('Workspace is not trusted: no connections'),
        runs: [],
        points: 0,
      }));
      this.onStatus();
      return;
    }
    this.untrusted = [];
    await this.connections.set(specs);
  }
  private untrusted: EndpointStatus[] = [];

  statuses(): EndpointStatus[] {
    return [...this.untrusted, ...this.connections.statuses()];
  }

  private onStatus(): void {
    this.controller.setStatus(this.statuses());
    this.scheduleStatus();
  }

  private scheduleStatus(): void {
    if (this.statusTimer || this.disposed) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      this.updateStatusBar();
    }, 250);
  }

  /** Status bar now (tests). */
  refreshStatusBar(): string {
    this.updateStatusBar();
    return this.statusBar.text;
  }

  /** The status bar from the store; the last summary's trend holds until the data turns. */
  private updateStatusBar(): void {
    this.lastStatus = summarize(this.store, this.statuses(), this.lastStatus);
    this.statusBar.update(this.lastStatus);
  }

  /** Opens (or reveals) the view. */
  show(): vscode.WebviewPanel {
    if (this.panel) {
      this.panel.reveal();
      return this.panel;
    }
    return this.adopt(createPanel());
  }

  /** A panel VS Code restored after a window reload. */
  adopt(panel: vscode.WebviewPanel): vscode.WebviewPanel {
    this.panelSubs?.dispose();
    this.panel = panel;
    this.panelSubs = attachPanel(panel, this.context.extensionUri, this.controller, () => {
      if (this.panel === panel) this.panel = undefined;
    });
    return panel;
  }

  get panelOpen(): boolean {
    return this.panel !== undefined;
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.flushTimer);
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.controller.dispose();
    this.store.flush();
    void this.connections.dispose();
    this.panel?.dispose();
    for (const s of this.subs) s.dispose();
  }

  /** Stops every connection and relay (awaitable; deactivate). */
  async shutdown(): Promise<void> {
    this.dispose();
    await this.connections.dispose();
  }
}
