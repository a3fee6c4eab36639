// Is an endpoint on this machine? A local model server (llama.cpp, vLLM, the sandbox's model)
// never needs an API key, so neither the wizard nor the debugger asks for one there.

export function isLoopbackUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}
