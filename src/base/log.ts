// The logging surface pure modules accept. vscode.LogOutputChannel satisfies it
// structurally, so features log to the "Agent RL" channel without importing vscode,
// and the CLI / tests pass a console- or memory-backed logger.
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

/** A logger that drops everything (default for library code). */
export const silentLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** A logger writing to stderr, for CLI subcommands (`--verbose` turns on debug). */
export function stderrLogger(verbose = false): Logger {
  const write = (level: string, message: string | Error, args: unknown[]) => {
    const text = message instanceof Error ? (message.stack ?? message.message) : message;
    process.stderr.write(`[${level}] ${[text, ...args.map(String)].join(' ')}\n`);
  };
  return {
    trace: (m, ...a) => verbose && write('trace', m, a),
    debug: (m, ...a) => verbose && write('debug', m, a),
    info: (m, ...a) => write('info', m, a),
    warn: (m, ...a) => write('warn', m, a),
    error: (m, ...a) => write('error', m, a),
  };
}
