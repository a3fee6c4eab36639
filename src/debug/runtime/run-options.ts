// What a native rollout run is given (RuntimeOptions), in a file of its own so what builds a
// run (launch, forks) uses it without importing the runtime itself.
import type { L10n } from '../../base/l10n';
import type { Logger } from '../../base/log';
import type { RunnerPlan } from '../trajectory/runner-protocol';
import type { ReplayVerifier } from '../gateway/replay';
import type { ChatUpstream } from '../gateway/model-endpoint';

export interface RuntimeOptions {
  plan: Omit<RunnerPlan, 'model' | 'clientTimeout' | 'auxiliaryModels'>;
  upstream: ChatUpstream;
  /** Index-aligned with explorer.auxiliary_models: where auxiliary model i's calls go
   *  (default: `upstream`), and the model name its wrapper asks for. */
  auxiliary?: { upstream?: ChatUpstream; name: string }[];
  replay?: ReplayVerifier;
  /** launch.json model.name: used as is. */
  modelName?: string;
  /** The config's model (model_path / model.path): preferred when the endpoint serves it. */
  configModelName?: string;
  python: string;
  /** The folder holding the `agentrl_runner` package (dist/runner). */
  runnerDir: string;
  env: NodeJS.ProcessEnv;
  pythonDebugger: boolean;
  /** Folder holding .agentrl/runs; undefined: do not save the run. */
  runRoot?: string;
  meta: Record<string, unknown>;
  backbone: string;
  logger: Logger;
  clientTimeoutSec?: number;
  /** Debugger strings (stop descriptions); English when not given. */
  l10n?: L10n;
  /** Run the original branch of each edited episode when the run ends (default: yes, not in replays). */
  fork?: boolean;
  /** Save the run exactly here instead of a new folder under runRoot (a fork's branch). */
  runDir?: string;
  /** Called with timestamps (performance.now()) of the run's last steps (`agentrl rollout --timings`). */
  onTiming?: (what: string, at: number) => void;
}
