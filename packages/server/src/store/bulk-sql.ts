import { Prisma } from "@switchyard/db";

/**
 * Building blocks of bulk writes through UNNEST: each column travels as one array parameter, so a
 * statement binds a handful of parameters whatever its row count (far below Postgres' 65,535
 * limit) and inserts thousands of rows in one round trip. Column names and types are constants of
 * the calling store, never input; values are always bound parameters.
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

/** One column's values as the array parameter UNNEST takes. */
function columnValues<Row>(col: Column<Row>, rows: readonly Row[]): unknown[] {
  return rows.map((row) => {
    const value = col.value(row);
    if (value === null) return null;
    switch (col.type) {
      case "jsonb":
        return JSON.stringify(value);
      case "jsonb-text":
        return value;
      case "text[]":
        return textArrayLiteral(value as readonly string[]);
      case "timestamp(3)":
        // Prisma's DateTime is timestamp(3) without time zone, holding UTC.
        return new Date(value as number).toISOString();
      default:
        return value;
    }
  });
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
  const arrays = Prisma.join(
    columns.map(
      (c) =>
        Prisma.sql`${columnValues(c, rows)}::${Prisma.raw(c.type === "text[]" ? "text" : sqlType(c.type))}[]`,
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
