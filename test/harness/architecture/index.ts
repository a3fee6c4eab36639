// The architecture rules of CONTRIBUTING.md, each a function from a file set to its violations.
export { type FileSet, type Violation, fileSet, formatViolation, readTree } from './files';
export { type ModuleRef, moduleRefs } from './imports';
export { featureImports, vscodeImports, vscodeBan } from './layers';
export { fileCycles, folderCycles, folderGraph } from './cycles';
export { longFiles, lineCount, MAX_FILE_LINES } from './size';
export { l10nBypasses, l10nMessages, untranslated } from './l10n';
