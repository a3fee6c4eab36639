// `npm run bench -- activation [--runs N]`: activation time of the PACKAGED extension in the
// real extension host (VS Code 1.100.3 server from code-server + Chromium), median of N fresh
// hosts, against two peers measured in the same runs: an empty extension (the floor: what
// the host costs for any extension) and a built-in VS Code extension. Plus the VSIX size.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import { launchChromium } from '../harness/browser';
import { repoRoot } from '../harness/paths';
import { startServer } from '../harness/vscode-server';

const OURS = 'agentrl.agent-rl-studio';
const EMPTY = 'bench.empty-extension';
const BUILTIN = 'vscode.markdown-language-features';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function writeEmptyExtension(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'empty-extension',
      publisher: 'bench',
      version: '0.0.1',
      engines: { vscode: '^1.100.0' },
      main: './extension.js',
      activationEvents: [],
    }),
  );
  fs.writeFileSync(path.join(dir, 'extension.js'), 'exports.activate = function () {};\n');
}

async function once(devPath: string, extensionsDir: string, probe: string, tmp: string, i: number) {
  const out = path.join(tmp, `result-${i}.json`);
  const server = await startServer({ extensionsDir, env: { AGENTRL_BENCH_OUT: out, AGENTRL_BENCH_EXTENSIONS: [OURS, EMPTY, BUILTIN].join(',') } });
  const browser = await launchChromium();
  try {
    const ws = path.join(tmp, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    const authority = await server.authority(ws);
    const remote = (p: string) => `vscode-remote://${authority}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(devPath)],
      ['extensionTestsPath', remote(probe)],
      ['skipWelcome', 'true'],
    ]);
    const page = await browser.newPage();
    let done!: (c: number) => void;
    const exited = new Promise<number>((r) => (done = r));
    await page.exposeFunction('codeAutomationLog', () => undefined);
    await page.exposeFunction('codeAutomationExit', (c: number) => done(c));
    await page.goto(`${server.base}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(payload)}`);
    const code = await Promise.race([exited, new Promise<number>((r) => setTimeout(() => r(-1), 120000))]);
    if (code !== 0) throw new Error(`probe run ${i} failed (exit ${code})`);
    return JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, { ms: number | null; alreadyActive: boolean; selfReportedMs?: number }>;
  } finally {
    await browser.close();
    await server.stop();
  }
}

async function main() {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
  const runs = Math.max(5, Number(values.runs));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-bench-act-'));
  try {
    const vsix = path.join(tmp, 'agent-rl-studio.vsix');
    const pk = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'package.mjs'), '--out', vsix], { encoding: 'utf8' });
    if (pk.status !== 0) throw new Error(`packaging failed:\n${pk.stdout}${pk.stderr}`);
    const vsixKb = fs.statSync(vsix).size / 1024;
    // Unpack the VSIX exactly as shipped and load that folder as the extension.
    const unpacked = path.join(tmp, 'vsix');
    const uz = spawnSync('unzip', ['-q', vsix, '-d', unpacked]);
    if (uz.status !== 0) throw new Error('unzip failed (apt-get install unzip)');
    const ext = path.join(unpacked, 'extension');
    // The floor peer sits in the extensions folder (the payload takes one development path).
    const extensionsDir = path.join(tmp, 'extensions');
    writeEmptyExtension(path.join(extensionsDir, 'bench.empty-extension-0.0.1'));
    const probe = path.join(repoRoot, 'out', 'test', 'bench', 'activation-probe.js');

    const samples: Record<string, number[]> = { [OURS]: [], [EMPTY]: [], [BUILTIN]: [] };
    const self: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await once(ext, extensionsDir, probe, tmp, i);
      for (const id of Object.keys(samples)) if (r[id]?.ms != null) samples[id].push(r[id].ms);
      if (r[OURS]?.alreadyActive) throw new Error('our extension was already active before the probe: an activation event fired at startup');
      if (r[OURS]?.selfReportedMs != null) self.push(r[OURS].selfReportedMs);
      console.log(
        `run ${i + 1}/${runs}: ours ${r[OURS]?.ms?.toFixed(1)} ms · empty ${r[EMPTY]?.ms?.toFixed(1)} ms · ${BUILTIN} ${r[BUILTIN]?.ms?.toFixed(1) ?? 'already active'} ms`,
      );
    }
    const ours = median(samples[OURS]);
    const floor = median(samples[EMPTY]);
    console.log('');
    console.log(`activation (ext.activate(): module load + activate()), median of ${runs} fresh extension hosts`);
    console.log(`  ours                    ${ours.toFixed(1)} ms   (inside activate(): ${median(self).toFixed(2)} ms)`);
    console.log(`  empty extension (floor) ${floor.toFixed(1)} ms   ratio ours/floor ${(ours / floor).toFixed(2)}`);
    if (samples[BUILTIN].length) {
      const b = median(samples[BUILTIN]);
      console.log(`  ${BUILTIN} ${b.toFixed(1)} ms   ratio ours/builtin ${(ours / b).toFixed(2)}`);
    }
    console.log(`  VSIX size ${vsixKb.toFixed(1)} KB (target ≤ 2048 KB); activation target ≤ 50 ms`);
    console.log(
      `BENCH activation activation_ms=${ours.toFixed(1)} vsix_kb=${vsixKb.toFixed(0)} floor_ms=${floor.toFixed(1)} ratio_vs_floor=${(ours / floor).toFixed(2)}`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
