// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules over the sources,
// tests, bench and scripts. Run by `npm run lint` (and .ci/run).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/out/', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      // Cluster objects are untrusted JSON: `any` is how they are read, after isObj() guards.
      '@typescript-eslint/no-explicit-any': 'off',
      // `_`-prefixed names are deliberately unused (destructuring that drops a key).
      // Matching control characters is the job here (hostile names, ANSI, XML 1.0's forbidden range).
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
    },
  },
);
