// Which model name the rollout asks for when launch.json names none: the config's model when
// the endpoint serves it, else the first the endpoint lists. Asked once, before the runner
// starts, with a short deadline so a dead endpoint does not hold up the launch.
import type { ChatUpstream } from '../gateway/model-endpoint';

/** The name to use, and why the endpoint could not be asked (shown to the user) if it could not. */
export async function discoverModelName(upstream: ChatUpstream, fromConfig: string | undefined): Promise<{ name: string; problem?: string }> {
  try {
    const list = (await Promise.race([upstream.models(), new Promise((_, rej) => setTimeout(() => rej(new Error('no answer within 5 s')), 5000))])) as {
      data?: { id?: string }[];
    };
    const ids = (list?.data ?? []).map((m) => m.id).filter((x): x is string => typeof x === 'string');
    if (fromConfig && ids.includes(fromConfig)) return { name: fromConfig };
    if (ids.length) return { name: ids[0] };
  } catch (e) {
    return {
      name: fromConfig ?? 'default',
      problem: `The model endpoint ${upstream.label} does not answer /v1/models (${(e as Error).message}); LLM calls will fail until it is up.`,
    };
  }
  return { name: fromConfig ?? 'default' };
}
