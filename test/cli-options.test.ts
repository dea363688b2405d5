/**
 * The option table (src/cli/options.ts): each flag once, under the name commander gives its value,
 * so the options type each command's action is handed (OptionsOf) is the one commander fills.
 */
import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { FLAGS } from '../src/cli/options.js';

describe('the option table', () => {
  it("keys each flag by commander's attribute name of its flags", () => {
    for (const [key, flag] of Object.entries(FLAGS))
      expect(new Option(flag.flags).attributeName(), flag.flags).toBe(key);
  });
});
