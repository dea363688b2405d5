/**
 * Untrusted text (names, annotation values, event messages) made safe for a terminal: ANSI/CSI
 * and OSC sequences (colors, cursor moves, OSC 8 links, title changes), other C0/C1 controls,
 * carriage returns and Unicode bidi overrides are removed; newlines (and U+2028, U+2029) become spaces.
 */

const CSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]/g;

const OSC = /\u001b\][\s\S]*?(?:\u0007|\u001b\\|\u009c)|\u009d[\s\S]*?(?:\u0007|\u001b\\|\u009c)/g;

const OTHER_ESC = /\u001b[@-_]?/g;

const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function clean(s: string): string {
  return s
    .replace(OSC, '')
    .replace(CSI, '')
    .replace(OTHER_ESC, '')
    .replace(/\r?\n|[\u2028\u2029]/g, ' ')
    .replace(CONTROL, '');
}
