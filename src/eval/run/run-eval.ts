// One comparison: checks that every endpoint answers before any task runs, then runs the
// workflow's tasks against each model at once (each its own recorded run through the rollout
// service), and saves the record. A model that errors or times out on some tasks gets those
// episodes counted as failed; only a run that could not start at all is an error. Pure: no vscode.
import * as path from 'path';
import type { EpisodeOutcome, ModelEndpoint, RolloutService } from '../../feature-api/rollouts';
import { maskSecrets, maskUrl, urlSecrets } from '../../base/url-secrets';
import { EVAL_DIR, newEvalId, saveEval, type EvalRecord, type ModelRun } from './eval-record';

export interface NamedModel extends ModelEndpoint {
  name: string;
}

export interface EvalOptions {
  config: string;
  /** The workflow's working directory. */
  cwd: string;
  /** The workspace whose .agentrl/eval/ keeps the comparison (default: cwd). */
  root?: string;
  models: NamedModel[];
  tasks: number;
  repeat: number;
  concurrency?: number;
  split?: string;
  python?: string;
  env?: NodeJS.ProcessEnv;
  /** Seconds to wait for an endpoint's first answer (default 10). */
  probeTimeoutSec?: number;
  /** Progress lines (episode ends). */
  progress?: (line: string) => void;
  /** Each episode's end, by model (the window's progress counts them). */
  onEpisode?: (model: string, e: EpisodeOutcome) => void;
  /** Aborting stops every model's run; what ran so far is saved (status 'terminated'). */
  signal?: AbortSignal;
}

/** Why the comparison could not run (exit 2 in the CLI): nothing was run. */
export class EvalSetupError extends Error {}

/** `name=URL` pairs, names unique and plain (they name run folders). A URL's credential
 *  (`?api_key=…`) is used for the calls but never printed or saved (maskUrl); a `user:password@`
 *  URL is refused, without echoing the password. */
export function parseModels(specs: readonly string[]): NamedModel[] {
  const out: NamedModel[] = [];
  for (const spec of specs) {
    const m = /^([A-Za-z0-9][\w.-]*)=(.+)$/.exec(spec);
    if (!m) throw new EvalSetupError(`a model is NAME=URL (e.g. base=http://127.0.0.1:8000/v1), not '${maskSecrets(spec, urlSecrets(spec))}'`);
    const shown = maskUrl(m[2]);
    let url: URL;
    try {
      url = new URL(m[2]);
    } catch {
      throw new EvalSetupError(`model ${m[1]}: '${shown}' is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EvalSetupError(`model ${m[1]}: '${shown}' is not an http(s) URL`);
    if (url.username || url.password)
      throw new EvalSetupError(
        `model ${m[1]}: credentials in the URL (${shown}) are refused: give the key through an environment variable ("apiKeyEnv" in compareModels)`,
      );
    if (out.some((o) => o.name === m[1])) throw new EvalSetupError(`model name '${m[1]}' is given twice`);
    out.push({ name: m[1], baseUrl: m[2].replace(/\/+$/, '') });
  }
  if (out.length < 2) throw new EvalSetupError('a comparison needs at least two models: --models base=URL new=URL');
  return out;
}

/** Asks `<baseUrl>/models`; any HTTP answer means a server is there. Rejects with why not. */
export async function probeEndpoint(m: NamedModel, timeoutSec: number): Promise<void> {
  const key = m.apiKeyEnv ? process.env[m.apiKeyEnv] : undefined;
  try {
    await fetch(`${m.baseUrl}/models`, { signal: AbortSignal.timeout(timeoutSec * 1000), headers: key ? { authorization: `Bearer ${key}` } : {} }).then((r) =>
      r.body?.cancel(),
    );
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = (e as Error).name === 'TimeoutError' ? `no answer within ${timeoutSec} s` : (cause?.code ?? cause?.message ?? (e as Error).message);
    throw new EvalSetupError(
      `model ${m.name}: the endpoint ${maskUrl(m.baseUrl)} does not answer (${maskSecrets(String(why), urlSecrets(m.baseUrl))}); start it or fix the URL — no task was run`,
    );
  }
}

/** Runs the comparison and saves it under <root>/.agentrl/eval/<id>/; returns the record and its folder. */
export async function runEval(service: RolloutService, o: EvalOptions): Promise<{ record: EvalRecord; dir: string }> {
  await Promise.all(o.models.map((m) => probeEndpoint(m, o.probeTimeoutSec ?? 10)));
  const root = o.root ?? o.cwd;
  const id = newEvalId(root);
  const dir = path.join(root, EVAL_DIR, id);
  // allSettled: a model whose run cannot start must not leave the others running unseen; it
  // stops them (their partial runs stay on disk), as the caller's abort does.
  const stopAll = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, stopAll.signal]) : stopAll.signal;
  const settled = await Promise.allSettled(
    o.models.map(async (m): Promise<ModelRun> => {
      const runDir = path.join(dir, 'runs', m.name);
      const { name, ...endpoint } = m;
      const outcome = await service.run(
        {
          config: o.config,
          cwd: o.cwd,
          tasks: o.tasks,
          repeat: o.repeat,
          concurrency: o.concurrency,
          split: o.split,
          python: o.python,
          model: endpoint,
          runDir,
          env: o.env,
          signal,
        },
        (e) => {
          o.onEpisode?.(name, e);
          const line = `${name} ${e.episode}: ${e.error ? `${e.error.phase} error ${e.error.type}: ${e.error.message}` : `reward ${e.reward ?? 'none'}`}`;
          o.progress?.(maskSecrets(line, urlSecrets(m.baseUrl)));
        },
      );
      if (!outcome.ok) {
        stopAll.abort();
        throw new EvalSetupError(`model ${name}: ${maskSecrets(outcome.message, urlSecrets(m.baseUrl))}`);
      }
      return {
        name,
        baseUrl: maskUrl(m.baseUrl), // saved in eval.json: never the credential
        runDir: path.relative(dir, outcome.runDir),
        status: outcome.status,
        ...(outcome.message ? { message: maskSecrets(outcome.message, urlSecrets(m.baseUrl)) } : {}),
        llmCalls: outcome.llmCalls,
        episodes: outcome.episodes.map((e) => (e.error ? { ...e, error: { ...e.error, message: maskSecrets(e.error.message, urlSecrets(m.baseUrl)) } } : e)),
      };
    }),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  const runs = settled.map((s) => (s as PromiseFulfilledResult<ModelRun>).value);
  const record: EvalRecord = {
    version: 1,
    id,
    createdAt: new Date().toISOString(),
    config: path.resolve(o.cwd, o.config),
    tasks: o.tasks,
    repeat: o.repeat,
    models: runs,
  };
  saveEval(dir, record);
  return { record, dir };
}
