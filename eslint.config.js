// @ts-check
import js from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * ESLint (`npm run lint`; `npm test` runs it first): ESLint's recommended rules and
 * typescript-eslint's type-aware ones, with the changes below. A disable comment names a rule
 * that would fire and says why (`// eslint-disable-next-line rule -- reason`).
 */
export default defineConfig(
  // client/ is generated (npm run client); cdk.out and .local are build and run output.
  { ignores: ['client/**', 'cdk.out/**', '.local/**', 'coverage/**'] },
  {
    files: ['**/*.{ts,js,mjs}'],
    extends: [js.configs.recommended, comments.recommended],
    languageOptions: { globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
    rules: {
      '@eslint-community/eslint-comments/require-description': 'error',
      '@eslint-community/eslint-comments/no-unlimited-disable': 'error',
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
      // A binding declared before the closure that reads it and assigned once later (a late wire-up).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['vitest.config.ts'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Promise.all over strings and promises side by side (a template's parts, some resolved later).
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Leading underscore: deliberately unused (an argument a signature requires); rest siblings
      // drop attributes from a stored item ({ PK, SK, ...record }).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' }],
      // `any` enters only where JSON does (JSON.parse, DynamoDB items, the tests' response bodies,
      // which test/support/api.ts validates against the OpenAPI document); no-explicit-any keeps it
      // from being written anywhere else, so the no-unsafe-* rules that follow `any` are off.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Stored attributes are unknown until read: String(item.x) is the deliberate conversion.
      '@typescript-eslint/no-base-to-string': 'off',
      // async marks a promise-returning contract (operations, stubs of interfaces); a body need not await.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
