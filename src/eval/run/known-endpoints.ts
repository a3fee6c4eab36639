// The model endpoints a new comparison is offered: those the workspace already names (the
// `agentrl` launch entries' `model.baseUrl` and `compareModels`), not ports where nothing may
// listen; and what is wrong or doubtful about the models typed (a model compared with itself
// measures only the noise). Pure: the host reads launch.json and probes the endpoints.
import type { L10n } from '../../base/l10n';
import { maskUrl } from '../../base/url-secrets';

export interface KnownEndpoint {
  url: string;
  /** The launch entry that names it. */
  from: string;
}

const trim = (u: string) => u.trim().replace(/\/+$/, '');

/** Distinct endpoints named by `agentrl` launch entries, in file order. */
export function knownEndpoints(entries: readonly unknown[]): KnownEndpoint[] {
  const out: KnownEndpoint[] = [];
  const add = (url: unknown, from: string) => {
    if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url.trim())) return;
    if (!out.some((e) => e.url === trim(url))) out.push({ url: trim(url), from });
  };
  for (const e of entries) {
    if (!e || typeof e !== 'object') continue;
    const c = e as { type?: unknown; name?: unknown; model?: { baseUrl?: unknown }; compareModels?: unknown };
    if (c.type !== 'agentrl') continue;
    const name = typeof c.name === 'string' ? c.name : 'agentrl';
    add(c.model?.baseUrl, name);
    if (Array.isArray(c.compareModels)) {
      for (const m of c.compareModels as unknown[])
        add(typeof m === 'string' ? m.slice(m.indexOf('=') + 1) : (m as { baseUrl?: unknown } | null)?.baseUrl, name);
    }
  }
  return out;
}

/** The models field's first value: the first two endpoints named, or the one named twice (a
 *  comparison of it with itself, which the warning explains); empty when none is named. */
export function prefillModels(known: readonly KnownEndpoint[]): string {
  if (known.length === 0) return '';
  const b = known[1] ?? known[0];
  return `base=${known[0].url} new=${b.url}`;
}

export interface ModelsCheck {
  error?: string;
  warning?: string;
  models?: { name: string; url: string }[];
}

/** The typed `NAME=URL …`: an error that blocks, or a warning that lets it run. */
export function checkModelsInput(value: string, l10n: L10n): ModelsCheck {
  const parts = value.trim().split(/\s+/).filter(Boolean);
  const models: { name: string; url: string }[] = [];
  for (const p of parts) {
    const m = /^([A-Za-z0-9][\w.-]*)=(https?:\/\/\S+)$/.exec(p);
    if (!m) return { error: l10n.t('Two or more NAME=URL pairs, separated by spaces') };
    if (models.some((x) => x.name === m[1])) return { error: l10n.t("The name '{0}' is given twice", m[1]) };
    models.push({ name: m[1], url: trim(m[2]) });
  }
  if (models.length < 2) return { error: l10n.t('Two or more NAME=URL pairs, separated by spaces') };
  const same = models.find((m, i) => models.findIndex((o) => o.url === m.url) !== i);
  if (same) {
    const first = models.find((o) => o.url === same.url)!;
    return {
      models,
      warning: l10n.t(
        '{0} and {1} are the same endpoint ({2}): a model compared with itself shows only the noise between runs.',
        first.name,
        same.name,
        maskUrl(same.url),
      ),
    };
  }
  return { models };
}
