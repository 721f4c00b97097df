import { Prisma } from "@switchyard/db";

/**
 * Building blocks of bulk writes through UNNEST: each column travels as one parameter, so a
 * statement binds a handful of parameters whatever its row count (far below Postgres' 65,535
 * limit) and inserts thousands of rows in one round trip. Column names and types are constants of
 * the calling store, never input; values are always bound parameters.
 *
 * A column's values travel as one JSON array (text), which Postgres splits back into an array of
 * the column's type: serializing a whole column is one JSON.stringify, where an array parameter
 * costs the driver an escaping pass per element, and Prisma a look at each. Writing the status of
 * 2,000 nodes (a type row each, and their nodes' updatedAt) took ~50 ms of the server's CPU per
 * write as arrays and ~18 ms as JSON, and less time in all (ten writes: 1.2 → 0.75 s).
 */

/**
 * Rows per statement: bounds one statement's size on a fleet-sized write. On
 * largeConfigSpec(10_000, 10_000), chunks of 1,000 to 100,000 rows took the same time: the cost is
 * Postgres inserting rows (index entries, foreign-key checks), not statements.
 */
export const CHUNK_ROWS = 5_000;

export type ColumnType =
  | "uuid"
  | "text"
  | "int4"
  | "int8"
  | "bool"
  | "jsonb"
  /** jsonb whose value is already JSON text (serialized once, e.g. to hash it). */
  | "jsonb-text"
  | "text[]"
  | "timestamp(3)"
  | '"DiscoveryType"'
  | '"LbPolicy"'
  | '"HealthStatus"'
  | '"RouteMatchKind"'
  | '"RouteActionKind"';

/** A column of a bulk write: its name in prisma/schema.prisma, its type, and a row's value. */
export interface Column<Row> {
  readonly name: string;
  readonly type: ColumnType;
  readonly value: (row: Row) => unknown;
}

export function column<Row>(
  name: string,
  type: ColumnType,
  value: (row: Row) => unknown,
): Column<Row> {
  return { name, type, value };
}

/** A Postgres array literal; every element is quoted, so "NULL" and "" stay strings. */
function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;
}

/** A JSON.stringify replacer: string values made well-formed (Postgres refuses lone surrogates). */
const wellFormedStrings = (_key: string, value: unknown) =>
  typeof value === "string" ? value.toWellFormed() : value;

/**
 * One column's values as the JSON array the statement splits back into rows. Strings, and string
 * values in jsonb, are made well-formed: a lone surrogate becomes U+FFFD (as the driver's UTF-8
 * encoding made it of a text value) rather than a JSON escape Postgres refuses. A number must be
 * finite (JSON has no NaN: it would read as NULL).
 */
function columnValues<Row>(col: Column<Row>, rows: readonly Row[]): string {
  const convert = converterOf(col);
  return JSON.stringify(
    rows.map((row) => {
      const value = col.value(row);
      return value === null || value === undefined ? null : convert(value);
    }),
  );
}

/** How a column's non-null values are written, chosen once per column, not per value. */
function converterOf<Row>(col: Column<Row>): (value: unknown) => unknown {
  switch (col.type) {
    case "jsonb":
      return (value) => JSON.stringify(value, wellFormedStrings);
    case "text[]":
      return (value) => textArrayLiteral(value as readonly string[]).toWellFormed();
    case "timestamp(3)": {
      // Prisma's DateTime is timestamp(3) without time zone, holding UTC. A batch's rows mostly
      // share their times (a write's updatedAt): each is formatted once in a row.
      let last: number | undefined;
      let iso = "";
      return (value) => {
        if (value !== last) {
          last = value as number;
          iso = new Date(last).toISOString();
        }
        return iso;
      };
    }
    case "int4":
    case "int8":
      return (value) => {
        if (typeof value === "bigint") return value.toString();
        if (typeof value !== "number" || !Number.isFinite(value))
          throw new Error(`column ${col.name}: ${String(value)} is not a finite number`);
        return value;
      };
    default:
      return (value) => (typeof value === "string" ? value.toWellFormed() : value);
  }
}

export const quoted = (name: string) => `"${name}"`;

/** The SQL type of a column. */
const sqlType = (type: ColumnType): string => (type === "jsonb-text" ? "jsonb" : type);

/**
 * `(columns) SELECT ... FROM UNNEST(...)` for `rows`, plus `fixed` columns whose value is the same
 * SQL expression for every row (e.g. a timestamp).
 */
export function rowsSource<Row>(
  columns: readonly Column<Row>[],
  rows: readonly Row[],
  fixed: readonly (readonly [name: string, value: Prisma.Sql])[] = [],
): Prisma.Sql {
  const names = Prisma.raw(
    [...columns.map((c) => c.name), ...fixed.map(([name]) => name)].map(quoted).join(", "),
  );
  const selected = Prisma.join([
    ...columns.map((c) => Prisma.raw(`u.${quoted(c.name)}::${sqlType(c.type)}`)),
    ...fixed.map(([, value]) => value),
  ]);
  // A text[] column travels as text (one array literal per row) and is cast back in the SELECT.
  // The elements keep their order (WITH ORDINALITY): the columns are zipped back into rows.
  const arrays = Prisma.join(
    columns.map(
      (c) =>
        Prisma.sql`ARRAY(SELECT v FROM json_array_elements_text(${columnValues(c, rows)}::json) WITH ORDINALITY AS e(v, i) ORDER BY i)::${Prisma.raw(c.type === "text[]" ? "text" : sqlType(c.type))}[]`,
    ),
  );
  const alias = Prisma.raw(columns.map((c) => quoted(c.name)).join(", "));
  return Prisma.sql`(${names}) SELECT ${selected} FROM UNNEST(${arrays}) AS u(${alias})`;
}

/** `items` in slices of CHUNK_ROWS. */
export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK_ROWS)
    out.push(items.slice(start, start + CHUNK_ROWS));
  return out;
}
