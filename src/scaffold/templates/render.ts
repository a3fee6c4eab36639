// Renders a template into the files of a project: `{{> partial}}` includes, then `{{var}}`
// placeholders. Pure: text in, text out. An unknown placeholder or partial is an error (a typo in
// a template must not ship as literal braces in a user's project).
import type { Template, TemplateSet } from './types';
import { TemplateSetError } from './template-set';

export type Vars = Readonly<Record<string, string>>;

const PARTIAL_LINE = /^[ \t]*\{\{>\s*([\w.-]+)\s*\}\}[ \t]*(?:\r?\n|$)/gm;
const PARTIAL_INLINE = /\{\{>\s*([\w.-]+)\s*\}\}/g;
const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;
const MAX_DEPTH = 5;

function expandPartials(text: string, partials: Vars, where: string, depth = 0): string {
  const include = (name: string) => {
    const body = partials[name];
    if (body === undefined) throw new TemplateSetError(`${where}: unknown partial {{> ${name}}}`);
    if (depth >= MAX_DEPTH) throw new TemplateSetError(`${where}: partials nested deeper than ${MAX_DEPTH} ({{> ${name}}})`);
    return expandPartials(body, partials, `${where} > ${name}`, depth + 1);
  };
  // A partial on a line of its own replaces that line; elsewhere it is spliced in without its final newline.
  return text
    .replace(PARTIAL_LINE, (_m, name: string) => {
      const body = include(name);
      return body.endsWith('\n') ? body : body + '\n';
    })
    .replace(PARTIAL_INLINE, (_m, name: string) => include(name).replace(/\r?\n$/, ''));
}

export function renderText(text: string, vars: Vars, partials: Vars, where: string): string {
  return expandPartials(text, partials, where).replace(PLACEHOLDER, (_m, key: string) => {
    const value = vars[key];
    if (value === undefined) throw new TemplateSetError(`${where}: unknown placeholder {{${key}}}`);
    return value;
  });
}

/** Every file of the template, rendered; paths are relative to the project folder. */
export function renderTemplateFiles(set: TemplateSet, template: Template, vars: Vars): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, text] of Object.entries(template.files)) {
    const where = `templates/${template.id}/${file}`;
    out[renderText(file, vars, {}, where)] = renderText(text, vars, set.partials, where);
  }
  return out;
}
