// The tokenizer of the model a debug run talks to, found once per run: the config's model_path
// (a folder — a relative one read from the config file's folder first, as the config's other
// paths are — or a hub id in the local Hugging Face cache), else the name the endpoint serves
// (a folder when the endpoint runs a local model), else the endpoint itself (/tokenize,
// /detokenize) — a hosted model or a checkpoint on the cluster has no files here, but its
// server can still say which tokens it produced.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tokenizerFor } from '../../tokens/tokenizer-files';
import type { RunTokenizer } from '../../tokens/tokenizer';
import { EndpointTokenizerError, TokenizeEndpoint } from '../gateway/tokenize-endpoint';

/** Where a run's tokenizer may be: what the run knows of its model. */
export interface TokenizerHints {
  /** The config's model.model_path. */
  modelPath?: string;
  /** The config file's folder: a relative model_path is looked for there first. */
  configDir?: string;
  /** The model name the run asks the endpoint for. */
  modelName?: string;
  /** The live endpoint (none when replaying a recording). */
  endpoint?: { baseUrl: string; apiKey?: string };
}

export type TokenizerChoice =
  { kind: 'local'; tokenizer: RunTokenizer } | { kind: 'endpoint'; endpoint: TokenizeEndpoint; localReason: string } | { kind: 'none'; reason: string };

export class DebugRunTokenizers {
  private found?: Promise<TokenizerChoice>;

  constructor(
    private readonly hints: TokenizerHints,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly fetchImpl?: typeof fetch,
  ) {}

  /** Looked up on first use, then the same answer for the rest of the run. */
  get(): Promise<TokenizerChoice> {
    return (this.found ??= this.lookup());
  }

  private async lookup(): Promise<TokenizerChoice> {
    const reasons: string[] = [];
    const { modelPath, configDir } = this.hints;
    const relative = modelPath && configDir && !path.isAbsolute(modelPath) && !modelPath.startsWith('~') ? path.resolve(configDir, modelPath) : undefined;
    const besideConfig = relative && fs.existsSync(relative) ? relative : undefined;
    const names = [...new Set([besideConfig, modelPath, this.hints.modelName].filter((x): x is string => !!x))];
    for (const name of names) {
      const t = tokenizerFor(name, this.env);
      if ('tokenizer' in t) return { kind: 'local', tokenizer: t.tokenizer };
      reasons.push(t.reason);
    }
    if (!names.length) reasons.push('the run names no model path');
    const localReason = reasons.join('; ');
    const ep = this.hints.endpoint;
    if (!ep) return { kind: 'none', reason: localReason };
    const endpoint = new TokenizeEndpoint({ baseUrl: ep.baseUrl, apiKey: ep.apiKey, model: this.hints.modelName, fetch: this.fetchImpl });
    try {
      await endpoint.tokenize('a');
      return { kind: 'endpoint', endpoint, localReason };
    } catch (e) {
      const why = e instanceof EndpointTokenizerError ? e.message : String(e);
      return { kind: 'none', reason: `${localReason}; ${why}` };
    }
  }
}
