// Debian's Chromium driven by playwright-core (no browser download: scripts/setup.sh installs it with apt).
import { chromium, Browser } from 'playwright-core';
import { chromiumBin } from './paths';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

/**
 * GPU compositing without a GPU: SwiftShader (Chromium's CPU implementation of GL) stands in
 * for the graphics card of a desktop VS Code. Canvases and raster tiles then live in the GPU
 * process, as on a desktop, instead of the page's renderer (software compositing, the default
 * here, is what a VS Code without a usable GPU does: a VM, a remote desktop).
 */
export const GPU_STAND_IN_ARGS = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'];

export async function launchChromium(opts: { compositing?: 'software' | 'gpu' } = {}): Promise<Browser> {
  const args = opts.compositing === 'gpu' ? [...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'), ...GPU_STAND_IN_ARGS] : CHROMIUM_ARGS;
  return chromium.launch({ executablePath: chromiumBin, headless: true, args });
}
