// Checks of what the user types or picks, each returning a localized message or undefined.
import type { L10n } from '../../base/l10n';
import { FRAMEWORK_PACKAGES, PROJECT_FILE_NAMES, PYTHON_KEYWORDS, PYTHON_STDLIB, WINDOWS_DEVICES, YAML_SPECIAL } from './reserved';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_NAME = 64;

/** A project name: a Python identifier that is safe as a package, folder and YAML value. */
export function checkName(name: string, l10n: L10n): string | undefined {
  if (!name) return l10n.t('Enter a name for the project, such as math_agent.');
  if (name.includes('/') || name.includes('\\') || name.includes('..')) {
    return l10n.t("'{0}' is not a folder name: the project is created inside the target folder, so use a plain name such as math_agent.", name);
  }
  if (!IDENTIFIER.test(name)) {
    return l10n.t("'{0}' is not a valid Python identifier: use letters, digits and underscores, not starting with a digit (e.g. math_agent).", name);
  }
  if (name.length > MAX_NAME) return l10n.t('The name is longer than {0} characters.', MAX_NAME);
  if (name.startsWith('_')) return l10n.t("'{0}' starts with an underscore, which Trinity-RFT's plugin loader skips; start with a letter.", name);
  if (PYTHON_KEYWORDS.has(name)) return l10n.t("'{0}' is a Python keyword; choose another name.", name);
  const lower = name.toLowerCase();
  if (PYTHON_STDLIB.has(name)) return l10n.t("'{0}' would shadow the Python standard library module of that name; choose another name.", name);
  if (FRAMEWORK_PACKAGES.has(lower)) return l10n.t("'{0}' would shadow the package {0}, which the project imports; choose another name.", name);
  if (PROJECT_FILE_NAMES.has(lower)) return l10n.t("'{0}' is the name of a file inside the project; choose another name.", name);
  if (YAML_SPECIAL.has(lower)) return l10n.t("'{0}' reads as a boolean or null in YAML configs; choose another name.", name);
  if (WINDOWS_DEVICES.has(lower)) return l10n.t("'{0}' is a reserved file name on Windows; choose another name.", name);
  return undefined;
}

const MODEL = /^[A-Za-z0-9._~/@+-]+$/;

/** A model: a Hugging Face id or a local path, safe to write into YAML and ${oc.env:...} defaults. */
export function checkModel(model: string, l10n: L10n): string | undefined {
  if (!model) return l10n.t('Enter a model: a Hugging Face id such as Qwen/Qwen2.5-0.5B-Instruct, or a local path.');
  if (model.length > 300) return l10n.t('The model id or path is longer than 300 characters.');
  if (!MODEL.test(model)) {
    return l10n.t(
      "'{0}' has characters a config cannot hold unquoted (spaces, quotes, braces, commas, colons...): use a model id such as Qwen/Qwen2.5-0.5B-Instruct or a path without them.",
      model,
    );
  }
  return undefined;
}

/** Largest task file copied into a project. */
export const MAX_DATA_BYTES = 64 * 1024 * 1024;

/** A user-supplied task file: JSON Lines whose rows are objects with the template's keys. */
export function checkDataFile(fileName: string, text: string, keys: readonly string[], l10n: L10n): string | undefined {
  if (!/\.jsonl$/i.test(fileName)) return l10n.t('{0} is not a .jsonl file: pick a JSON Lines file, one task per line.', fileName);
  const lines = text.split(/\r?\n/);
  let rows = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      return l10n.t('{0}, line {1}: not valid JSON.', fileName, i + 1);
    }
    if (!row || typeof row !== 'object' || Array.isArray(row)) return l10n.t('{0}, line {1}: a task must be a JSON object.', fileName, i + 1);
    const missing = keys.filter((k) => !(k in row));
    if (missing.length) return l10n.t('{0}, line {1}: missing {2} (this template reads {3}).', fileName, i + 1, missing.join(', '), keys.join(', '));
    rows++;
  }
  if (rows === 0) return l10n.t('{0} has no tasks.', fileName);
  return undefined;
}
