/**
 * The JSON Schema of each check's evidence, from its type (`EvidenceOf<typeof check>`, inferred
 * from what its run() yields; src/checks/define.ts), by the TypeScript compiler's own API: the
 * type argument `E` of each check module's default export (`Check<E, M>`), turned into a schema.
 * Written into schema/report.schema.json as `$defs.evidence.$defs.<check id>` and
 * `$defs.evidenceByCheck` (an if/then per check on the finding's `id`, which `$defs.finding`
 * applies): the rest of the file is left as it is. Deterministic: checks and properties sorted.
 *
 *   npx tsx scripts/evidence-schema.ts            rewrite the two $defs
 *   test/evidence-schema.test.ts                  fails when they differ from what this generates,
 *                                                 and validates every finding of the fixture corpus
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');
const CHECKS_DIR = join(ROOT, 'src', 'checks');
const SCHEMA = join(ROOT, 'schema', 'report.schema.json');
/** The modules of src/checks/ that are not a check. */
const NOT_CHECKS = new Set(['catalog.ts', 'define.ts', 'index.ts', 'lookup.ts', 'types.ts']);

type Schema = Record<string, unknown>;

/** A type as a JSON Schema: what JSON.stringify makes of a value of it (undefined keys left out). */
function toSchema(checker: ts.TypeChecker, type: ts.Type, depth = 0): Schema {
  if (depth > 12) return {};
  const F = ts.TypeFlags;
  if (type.flags & (F.Any | F.Unknown)) return {};
  if (type.flags & F.Null) return { type: 'null' };
  if (type.flags & F.StringLiteral) return { const: (type as ts.StringLiteralType).value };
  if (type.flags & F.NumberLiteral) return { const: (type as ts.NumberLiteralType).value };
  if (type.flags & F.BooleanLiteral) return { const: checker.typeToString(type) === 'true' };
  if (type.flags & F.String || type.flags & F.TemplateLiteral) return { type: 'string' };
  if (type.flags & F.Number) return { type: 'number' };
  if (type.flags & F.Boolean) return { type: 'boolean' };
  if (type.isUnion()) {
    const parts = type.types.filter((t) => !(t.flags & (F.Undefined | F.Void)));
    // true | false: boolean (TypeScript spells boolean so).
    const bools = parts.filter((t) => t.flags & F.BooleanLiteral);
    const rest = parts.filter((t) => !(t.flags & F.BooleanLiteral));
    const schemas = [
      ...(bools.length === 2 ? [{ type: 'boolean' }] : bools.map((b) => toSchema(checker, b, depth))),
      ...rest.map((t) => toSchema(checker, t, depth + 1)),
    ];
    const unique = [...new Map(schemas.map((s) => [JSON.stringify(s), s])).values()];
    if (unique.every((s) => 'const' in s)) return { enum: unique.map((s) => s.const).sort() };
    if (unique.length === 1) return unique[0]!;
    return { anyOf: unique.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) };
  }
  if (checker.isTupleType(type)) {
    const items = checker.getTypeArguments(type as ts.TypeReference).map((t) => toSchema(checker, t, depth + 1));
    return { type: 'array', prefixItems: items };
  }
  if (checker.isArrayType(type)) {
    const [item] = checker.getTypeArguments(type as ts.TypeReference);
    return { type: 'array', items: item ? toSchema(checker, item, depth + 1) : {} };
  }
  if (type.getSymbol()?.getName() === 'Date') return { type: 'string' };
  if (type.flags & F.Object || type.isIntersection()) {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const p of checker.getPropertiesOfType(type).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const t = checker.getTypeOfSymbol(p);
      if (t.getCallSignatures().length) continue;
      const optional =
        !!(p.flags & ts.SymbolFlags.Optional) || (t.isUnion() && t.types.some((x) => x.flags & F.Undefined));
      properties[p.name] = toSchema(checker, t, depth + 1);
      if (!optional && !(t.flags & F.Undefined)) required.push(p.name);
    }
    const index = checker.getIndexTypeOfType(type, ts.IndexKind.String);
    return {
      type: 'object',
      ...(Object.keys(properties).length ? { properties } : {}),
      ...(required.length ? { required } : {}),
      // Open, as TypeScript's object types are: a check may give keys its type does not name
      // (injection-marker-invalid's evidence is typed by its common keys); the keys named are required and typed.
      ...(index ? { additionalProperties: toSchema(checker, index, depth + 1) } : {}),
    };
  }
  return {};
}

/** Each check's evidence schema, by check id (sorted). */
export function evidenceSchemas(): Record<string, Schema> {
  const files = readdirSync(CHECKS_DIR)
    .filter((f) => f.endsWith('.ts') && !NOT_CHECKS.has(f))
    .sort();
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram(
    files.map((f) => join(CHECKS_DIR, f)),
    { ...options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const out: Record<string, Schema> = {};
  for (const f of files) {
    const source = program.getSourceFile(join(CHECKS_DIR, f))!;
    const moduleSymbol = checker.getSymbolAtLocation(source)!;
    const def = checker.getExportsOfModule(moduleSymbol).find((s) => s.escapedName === 'default');
    if (!def) throw new Error(`${f}: no default export`);
    const checkType = checker.getTypeOfSymbol(def) as ts.TypeReference;
    const [evidence] = checker.getTypeArguments(checkType);
    if (!evidence) throw new Error(`${f}: its default export is not a Check<E, M>`);
    out[f.replace(/\.ts$/, '')] = toSchema(checker, evidence);
  }
  return out;
}

/** The two $defs written into the report schema. */
export function evidenceDefs(schemas = evidenceSchemas()) {
  const ids = Object.keys(schemas).sort();
  return {
    evidenceByCheck: {
      description:
        "Each check's evidence, by the finding's id (generated by scripts/evidence-schema.ts from the checks' types).",
      allOf: ids.map((id) => ({
        if: { properties: { id: { const: id } }, required: ['id'] },
        then: { properties: { evidence: { $ref: `#/$defs/evidence/$defs/${id}` } } },
      })),
    },
    evidence: {
      description:
        "The evidence of each check's findings, keyed by check id (generated by scripts/evidence-schema.ts from EvidenceOf<typeof check>).",
      $defs: Object.fromEntries(ids.map((id) => [id, schemas[id]!])),
    },
  };
}

/** The report schema's text with the generated $defs replaced (or added last in $defs). */
export function withEvidenceDefs(text: string, defs = evidenceDefs()): string {
  const marker = ',\n    "evidenceByCheck": {';
  const end = text.lastIndexOf('\n  }\n}');
  if (end < 0) throw new Error('report.schema.json: $defs is not its last member');
  const start = text.indexOf(marker);
  const body = JSON.stringify(defs, null, 2)
    .slice(2, -2) // the members, without the outer braces
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  return `${text.slice(0, start >= 0 ? start : end)},\n${body}${text.slice(end)}`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const schemas = evidenceSchemas();
  writeFileSync(SCHEMA, withEvidenceDefs(readFileSync(SCHEMA, 'utf8'), evidenceDefs(schemas)));
  console.log(`wrote the evidence of ${Object.keys(schemas).length} checks into ${SCHEMA}`);
}
