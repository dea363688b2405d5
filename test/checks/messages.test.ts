/**
 * Messages with ids (src/checks/define.ts): a check declares its messages, id -> template with
 * `{param}` slots, and its findings say one of them with its params; the runner renders the text.
 * Every check does but NOT_CONVERTED (a list that only shrinks; CONVERTED is derived from the
 * registry): each must give every finding of its fixtures an id, and every template must be well formed. The types make an unknown id, a missing or an unknown param a
 * compile error (the type tests below, at `tsc -p tsconfig.test.json`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineCheck, messages, meta, renderMessage, say, slotsOf } from '../../src/checks/define.js';
import { CHECKS } from '../../src/checks/index.js';
import type { ParamsOf, Slots } from '../../src/checks/types.js';
import { FIXTURES, baseOf, cluster, findings } from '../helpers/fixtures.js';

/**
 * The checks still yielding their own text: a list that only shrinks (convert one, delete it here).
 * Every other check declares its messages, so a new check joins no list: CONVERTED is derived.
 */
const NOT_CONVERTED: string[] = [];

/** The checks whose findings say a message by id: every registered check but NOT_CONVERTED. */
const CONVERTED = CHECKS.map((c) => c.id).filter((id) => !NOT_CONVERTED.includes(id));

describe('messages with ids', () => {
  it('every check declares its messages (a finding says one by id), but NOT_CONVERTED, which do not', () => {
    expect(
      CHECKS.filter((c) => !c.messages)
        .map((c) => c.id)
        .sort(),
    ).toEqual([...NOT_CONVERTED].sort());
  });

  it('every message: a kebab-case id, a template whose only braces are its {param} slots', () => {
    for (const c of CHECKS.filter((x) => x.messages))
      for (const [id, template] of Object.entries(c.messages as Record<string, string>)) {
        expect(id, c.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
        expect(`${c.id}/${id}`).toMatch(/^[a-z]+(-[a-z]+)*\/[a-z0-9]+(-[a-z0-9]+)*$/);
        expect(template.replace(/\{[A-Za-z0-9_]+\}/g, ''), `${c.id}/${id}`).not.toMatch(/[{}]/);
        expect(template.trim(), `${c.id}/${id}`).toBe(template);
      }
  });

  describe('every finding of a converted check in the fixture corpus says a message of it by id', () => {
    for (const id of CONVERTED) {
      const dir = join(FIXTURES, 'checks', id);
      // (Some fire from the healthy clusters at another time: their table, test/checks/<id>.test.ts, runs them.)
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => /^fires-.*\.ya?ml$/.test(f)) : [];
      it(`${id} (${files.length} firing fixtures)`, () => {
        const check = CHECKS.find((c) => c.id === id)!;
        for (const file of files)
          for (const f of findings(cluster(baseOf(file), [`checks/${id}/${file}`]), [id])) {
            expect(f.messageId, `${file}: ${f.message}`).toMatch(new RegExp(`^${id}/`));
            const local = f.messageId!.slice(id.length + 1);
            expect(Object.keys(f.params!).sort(), `${file}: ${f.messageId}`).toEqual(
              slotsOf(check.messages![local]!).sort(),
            );
            expect(renderMessage(check, { messageId: local, params: f.params! })).toBe(f.message);
          }
      });
    }
  });
});

describe('rendering', () => {
  const check = { id: 'x', messages: { a: 'A {one} and {two}, {one} again.' } };
  it('replaces every slot with its param (numbers as String does)', () => {
    expect(renderMessage(check, { messageId: 'a', params: { one: 'x', two: 2 } })).toBe('A x and 2, x again.');
    expect(slotsOf(check.messages.a)).toEqual(['one', 'two']);
  });
  it('a finding without an id keeps its text (a check not converted yet)', () => {
    expect(renderMessage(check, { message: 'Plain.' })).toBe('Plain.');
  });
  it('an unknown id or a missing param is an error, never a message with a hole', () => {
    expect(() => renderMessage(check, { messageId: 'b', params: {} })).toThrow('no message b');
    expect(() => renderMessage(check, { messageId: 'a', params: { one: 'x' } })).toThrow('lacks param two');
  });
});

describe('the types: an unknown id, a missing or an unknown param, text without an id are compile errors', () => {
  it('slots and params from the template', () => {
    expectTypeOf<Slots<'A {x} and {y}.'>>().toEqualTypeOf<'x' | 'y'>();
    expectTypeOf<keyof ParamsOf<'Plain.'>>().toEqualTypeOf<never>();
  });
  it('say and defineCheck', () => {
    const base = { mesh: 'linkerd' as const, resource: { kind: 'Pod', name: 'x' }, evidence: { a: 1 }, fix: [] };
    const M = messages({ one: 'A {x} and {y}.', two: 'Plain.' });
    const ok = defineCheck({
      ...meta('webhook-missing'),
      messages: M,
      *run() {
        yield { ...base, ...say(M, 'one', { x: 'a', y: 2 }) };
        yield { ...base, ...say(M, 'two', {}) };
        // @ts-expect-error an id the check does not declare
        yield { ...base, ...say(M, 'three', {}) };
        // @ts-expect-error a slot without its param
        yield { ...base, ...say(M, 'one', { x: 'a' }) };
        // @ts-expect-error a param without its slot
        yield { ...base, ...say(M, 'one', { x: 'a', y: 1, z: 3 }) };
      },
    });
    defineCheck({
      ...meta('webhook-missing'),
      messages: M,
      // @ts-expect-error a check with messages yields no text without an id
      *run() {
        yield { ...base, message: 'text' };
      },
    });
    expect(Object.keys(ok.messages!)).toEqual(['one', 'two']);
  });
});
