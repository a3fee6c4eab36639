// The data a scaffold template is made of (templates/<id>/template.json + its files), and what
// the wizard and the CLI ask for. Shared by the pure modules; no vscode, no fs.

export type Lang = 'en' | 'zh-cn';
export type Localized = Record<Lang, string>;

export interface FrameworkInfo {
  id: string;
  label: Localized;
  detail: Localized;
}

/** One launch.json entry of a template, paths relative to the generated project folder. */
export interface LaunchSpec {
  name: string;
  config: string;
  cwd: string;
  tasks?: number;
  workflow?: string;
}

export interface TemplateManifest {
  id: string;
  framework: string;
  order: number;
  label: Localized;
  detail: Localized;
  /** Suggested project name (a Python identifier). */
  defaultName: string;
  /** Folder under templates/_data copied into the project's data/. */
  dataset: string;
  /** Keys every row of a user-supplied JSONL file must have. */
  dataKeys: string[];
  /** Project-relative file opened after generation. */
  open: string;
  /** Project-relative YAML configs (what `agentrl check` validates). */
  configs: string[];
  /** Template-specific placeholder values. */
  vars: Record<string, string>;
  launch: LaunchSpec[];
}

export interface Template extends TemplateManifest {
  /** Template files by path relative to the template folder (template.json excluded). */
  files: Record<string, string>;
}

export interface Dataset {
  id: string;
  title: string;
  source: string;
  /** JSONL files by name (train.jsonl, test.jsonl). */
  files: Record<string, string>;
}

export interface TemplateSet {
  frameworks: FrameworkInfo[];
  /** Sorted by framework order, then template order. */
  templates: Template[];
  datasets: Record<string, Dataset>;
  /** Reusable snippets, included with {{> file}}. */
  partials: Record<string, string>;
}

/** Where the project's tasks come from. */
export type DataChoice = { kind: 'sample' } | { kind: 'file'; path: string };

export function localized(text: Localized, lang: Lang): string {
  return text[lang] || text.en;
}

/** VS Code's display language (e.g. "zh-cn", "en-us") to a template language. */
export function langOf(displayLanguage: string | undefined): Lang {
  return (displayLanguage ?? '').toLowerCase().startsWith('zh') ? 'zh-cn' : 'en';
}
