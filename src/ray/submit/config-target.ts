// Which file "Run on Ray Cluster…" runs when no config path is passed. The editor title and
// context menus pass the URI of *their* editor, which need not be the active one (a split);
// the active text editor is unknown to the extension host while an opened file is still
// loading, or when a webview is active beside it — then the active tab still names the file.
// Pure: callers hand in the URIs (vscode.Uri satisfies FileRef).

export interface FileRef {
  readonly scheme: string;
  readonly fsPath: string;
}

/** A URI-like value (what a menu passes as the command's first argument). */
export function isFileRef(x: unknown): x is FileRef {
  const r = x as Partial<FileRef> | null | undefined;
  return !!r && typeof r === 'object' && typeof r.scheme === 'string' && typeof r.fsPath === 'string';
}

/** The local path of the first candidate that is a file on disk (`file:` scheme), in order. */
export function configTarget(...candidates: ReadonlyArray<FileRef | undefined>): string | undefined {
  return candidates.find((c) => c?.scheme === 'file' && c.fsPath)?.fsPath;
}
