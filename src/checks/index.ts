/** The registry of checks, sorted by code. Adding a check: import it here (README "Adding a check"). */
import type { Check } from '../types.js';
import namespaceNotEnabled from './namespace-not-enabled.js';
import podOptedOut from './pod-opted-out.js';

export const CHECKS: readonly Check[] = [
  namespaceNotEnabled,
  podOptedOut,
].sort((a, b) => (a.code < b.code ? -1 : 1));
