// What the debugger needs from the relay feature to replay a training run's experiences: a row
// of its buffer by id, or the rows of some model versions, each with its decoded detail (the
// messages, prompt/response text, reward, info, metrics of Trinity's Experience). cli.ts and
// extension.ts hand the relay's implementation (src/relay/experience-reader.ts) to the debugger
// and to `agentrl eval --rescore`, so neither imports the relay.

/** A buffer row as the relay lists it (the fields a replay reads) and its detail. */
export interface ReadExperience {
  /** The row id as the metrics view shows it (SQL: its id; JSON lines: the line's offset + 1). */
  id: string;
  row?: { reward?: unknown; model_version?: unknown; task_index?: number; taskset_id?: number; run_id?: unknown; task_id?: unknown };
  detail: Record<string, unknown>;
  /** The row's own tokens, read when its detail keeps no conversation (Trinity 0.5.2's
   *  multi-turn workflows store tokens and the action mask, no messages). */
  tokens?: RecordedTokens;
}

/** An experience's tokens as stored: the action mask covers the tokens after the prompt. */
export interface RecordedTokens {
  ids: ArrayLike<number>;
  promptLength: number;
  actionMask: ArrayLike<number>;
}

export interface ExperienceReader {
  /** One row of the run's experience buffer. `where`: a job directory or a relay URL (ws://, wss://). */
  read(where: string, id: string): Promise<ReadExperience>;
  /** Every row whose model version is in [from, to], with its detail (rows whose detail cannot be
   *  read come with `error`). */
  rows(where: string, versions: [number, number]): Promise<(ReadExperience & { error?: string })[]>;
}
