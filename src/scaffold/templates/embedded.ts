// The templates/ folder, embedded into dist/agentrl.js at build time by esbuild.mjs (the
// `agentrl:templates` module), so the single-file CLI needs no files beside it.
import files from 'agentrl:templates';
import type { TemplateFiles } from './template-set';

export function embeddedTemplates(): TemplateFiles {
  return files;
}
