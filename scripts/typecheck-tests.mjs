#!/usr/bin/env node
/**
 * `tsc -p tsconfig.test.json` through the compiler's own command line (same output, same exit
 * code), which also saves the unused exports of that program for test/unused-exports.test.ts
 * (test/helpers/unused-exports.mjs says when the test may take them). Run by scripts/typecheck.mjs.
 */
import { checkTestsAndRecord } from '../test/helpers/unused-exports.mjs';

checkTestsAndRecord();
