// Lazily loaded host bundles. Activation must stay cheap (target ≤ 50 ms), and requiring
// vscode-languageclient + openai + @vscode/debugadapter + ws up front costs ~100 ms. So a
// feature's extension-host code is bundled separately (esbuild.mjs `hostBundles`, e.g.
// dist/config-host.js) and loaded on first use; activate() only registers tiny shims.
import * as path from 'path';

/** Returns a loader for dist/<bundle>.js, required once on first call. */
export function lazyBundle<T>(bundle: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require(path.join(__dirname, `${bundle}.js`)) as T;
    }
    return loaded;
  };
}
