// ESLint for the whole repo (`npm run lint`, the lint tier of `npm test`): typescript-eslint's
// type-aware rules over src/ and test/ (the extension host, CLI and tests with tsconfig.json, the
// webviews with tsconfig.webview.json), the plain rules over the build and test scripts (.mjs).
// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;

/** Browser code: checked against the DOM lib by its own tsconfig (the root one excludes it). */
const WEBVIEW = ['src/metrics/webview/**/*.ts', 'src/online/webview/**/*.ts'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'out/',
      'dist/',
      'media/',
      '.vscode-test/',
      '.cache/',
      'test-results/',
      '.sandbox/',
      'sample-workspace/',
      'templates/',
      'test/fixtures/',
    ],
  },
  js.configs.recommended,
  {
    // What the anchors (vscode-eslint, vscode-pull-request-github) add to the recommended sets
    // and this code already follows; formatting is left alone (no formatter here).
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-caller': 'error',
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: true }],
      'no-eval': 'error',
      'no-extend-native': 'error',
      'no-extra-bind': 'error',
      'no-lone-blocks': 'error',
      'no-new-wrappers': 'error',
      'no-self-compare': 'error',
      'no-sequences': 'error',
      'no-useless-call': 'error',
      'no-useless-computed-key': 'error',
      'no-useless-concat': 'error',
      'no-useless-rename': 'error',
      'no-var': 'error',
      'prefer-object-spread': 'error',
      'prefer-rest-params': 'error',
      'prefer-spread': 'error',
      // `let page; const post = () => page && …; page = await open()`: posts before it opens drop
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      yoda: 'error',
    },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.json', './tsconfig.webview.json'], tsconfigRootDir: root },
    },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits (its docs: no need to)
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: WEBVIEW,
    languageOptions: { globals: { ...globals.browser } },
  },
);
