// Which file "Run on Ray Cluster…" submits: the menu's URI over the active editor, the active
// tab when the extension host has no active text editor yet, never a non-file document.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { configTarget, isFileRef } from '../../../../src/ray/submit/config-target';

const file = (fsPath: string) => ({ scheme: 'file', fsPath });

test('the first file candidate wins: menu URI, then active editor, then active tab', () => {
  assert.equal(configTarget(file('/w/b.yaml'), file('/w/a.yaml'), file('/w/c.yaml')), '/w/b.yaml');
  assert.equal(configTarget(undefined, file('/w/a.yaml'), file('/w/c.yaml')), '/w/a.yaml');
  assert.equal(configTarget(undefined, undefined, file('/w/c.yaml')), '/w/c.yaml', 'an opened file still loading: its tab');
  assert.equal(configTarget(undefined, undefined, undefined), undefined);
});

test('documents that are not files on disk are skipped', () => {
  assert.equal(configTarget({ scheme: 'untitled', fsPath: 'Untitled-1' }, { scheme: 'output', fsPath: 'x' }, file('/w/c.yaml')), '/w/c.yaml');
  assert.equal(configTarget({ scheme: 'untitled', fsPath: 'Untitled-1' }), undefined);
});

test('a URI passed by a menu is told apart from the SubmitArgs object', () => {
  assert.ok(isFileRef(file('/w/a.yaml')));
  // vscode.Uri's fsPath is a getter on its prototype
  class FakeUri {
    scheme = 'file';
    get fsPath() {
      return '/w/a.yaml';
    }
  }
  assert.ok(isFileRef(new FakeUri()));
  assert.ok(!isFileRef({ config: '/w/a.yaml', cluster: 'http://127.0.0.1:8265' }));
  assert.ok(!isFileRef(undefined));
  assert.ok(!isFileRef(null));
});
