// `agentrl`: the one command-line tool. Bundled by esbuild into dist/agentrl.js, a single
// file that runs on plain node >= 18 without node_modules (so it can be copied to a GPU
// node). Each subcommand lives with its feature and is loaded only when invoked.
import { VERSION } from './base/version';

export interface Subcommand {
  /** One line for `agentrl --help`. */
  summary: string;
  /** Loads the implementation; returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** Subcommands, in the order `--help` lists them. Features add their entry here. */
export const SUBCOMMANDS: Record<string, Subcommand> = {
  check: {
    summary: 'Check Trinity-RFT / ASTuner / AgentJet configs (text, json or sarif output)',
    run: async (argv) => (await import('./config/cli')).main(argv),
  },
  new: {
    summary: 'Create a runnable RL workflow project from a template (--list shows them)',
    run: async (argv) => {
      const [{ main: newMain }, { embeddedTemplates }] = await Promise.all([import('./scaffold/cli'), import('./scaffold/templates/embedded')]);
      return newMain(argv, embeddedTemplates());
    },
  },
  rollout: {
    summary: "Run a workflow's rollouts locally (native debug backbone, recording gateway, replay)",
    run: async (argv) => {
      const [{ main: rolloutMain }, { createConfigChecker }, { createExperienceReader }] = await Promise.all([
        import('./debug/cli'),
        import('./config/engine/checker'),
        import('./relay/experience-reader'),
      ]);
      return rolloutMain(argv, { checker: createConfigChecker({ roots: [process.cwd()] }), experiences: createExperienceReader() });
    },
  },
  eval: {
    summary: "Compare models on a workflow's tasks with its own reward (per task, with a confidence interval; a CI gate)",
    run: async (argv) => {
      const [{ main: evalMain }, { DebugRolloutService, findRunnerDir }, { createConfigChecker }, { createExperienceReader }] = await Promise.all([
        import('./eval/cli'),
        import('./debug/rollout-service'),
        import('./config/engine/checker'),
        import('./relay/experience-reader'),
      ]);
      const runnerDir = findRunnerDir();
      if (!runnerDir) {
        process.stderr.write('agentrl eval: the Python runner (runner/agentrl_runner/) is missing next to the CLI\n');
        return 2;
      }
      return evalMain(argv, {
        rollouts: new DebugRolloutService(createConfigChecker({ roots: [process.cwd()] }), runnerDir, createExperienceReader()),
      });
    },
  },
  relay: {
    summary: 'Stream training metrics and experiences from this node over a WebSocket',
    run: async (argv) => (await import('./relay/cli')).main(argv),
  },
  tail: {
    summary: 'Print the points streamed by an agentrl relay',
    run: async (argv) => (await import('./relay/tail/tail')).main(argv),
  },
  pipeline: {
    summary:
      "Where a run's time goes: the bottleneck (explorer, trainer, sync, stragglers, checkpoint, eval), each role's shares and the config keys to change",
    run: async (argv) => (await import('./relay/pipeline/pipeline')).main(argv),
  },
  tasks: {
    summary: 'Which tasks of a run learn: each task by model version, its class, and evidence of reward hacking',
    run: async (argv) => (await import('./relay/tasks/tasks')).main(argv),
  },
  ray: {
    summary: 'Ray clusters from a terminal: "ray paused" lists tasks paused at a breakpoint or post-mortem, with the address to attach to',
    run: async (argv) => (await import('./ray/cli')).main(argv),
  },
  tokens: {
    summary: "Print one experience's tokens: ids, texts, logprobs, mask, advantages (--json for scripts)",
    run: async (argv) => (await import('./relay/tokens/tokens')).main(argv),
  },
};

export const EXIT_OK = 0;
export const EXIT_USAGE = 2;

export function usage(): string {
  const names = Object.keys(SUBCOMMANDS);
  const width = Math.max(8, ...names.map((n) => n.length));
  const lines = [
    `agentrl ${VERSION} — Agent RL Studio command-line tool`,
    '',
    'Usage: agentrl <command> [options]',
    '',
    'Commands:',
    ...names.map((n) => `  ${n.padEnd(width)}  ${SUBCOMMANDS[n].summary}`),
    `  ${'help'.padEnd(width)}  Show this help (also --help, -h)`,
    '',
    'Options:',
    '  --version, -v  Print the version',
    '  --help, -h     Print this help',
    '',
    "Run 'agentrl <command> --help' for a command's options.",
  ];
  return lines.join('\n') + '\n';
}

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const processIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

/** Dispatches argv (without `node` and the script path); returns the exit code. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    if (first === undefined) {
      io.stderr(usage());
      return EXIT_USAGE;
    }
    io.stdout(usage());
    return EXIT_OK;
  }
  if (first === '--version' || first === '-v') {
    io.stdout(`${VERSION}\n`);
    return EXIT_OK;
  }
  const sub = Object.prototype.hasOwnProperty.call(SUBCOMMANDS, first) ? SUBCOMMANDS[first] : undefined;
  if (!sub) {
    const what = first.startsWith('-') ? `unknown option '${first}'` : `unknown command '${first}'`;
    io.stderr(`agentrl: ${what}. Run 'agentrl --help' for the list of commands.\n`);
    return EXIT_USAGE;
  }
  return sub.run(rest);
}

// Run only when executed as the CLI, not when imported by tests.
if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`agentrl: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
