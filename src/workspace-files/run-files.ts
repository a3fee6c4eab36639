// Where a rollout run leaves its files: <workspace>/.agentrl/runs/<id>/. Written by the rollout
// debugger (and `agentrl rollout`); read by its views, and by the online playground, which
// offers the model the tools a workflow really sent (its recorded requests). A file contract
// between two features, so it lives here; the record shapes stay with the debugger.
export const RUNS_DIR = '.agentrl/runs';
/** One recorded LLM call per line: `{episode, index, request: {model, messages, tools?…}, response?…}`. */
export const RECORDING_FILE = 'recording.jsonl';
export const TRAJECTORIES_FILE = 'trajectories.jsonl';
export const SUMMARY_FILE = 'summary.json';
/** The launch configuration the run was started with (`name`, `workflow`, …). */
export const LAUNCH_FILE = 'launch.json';
