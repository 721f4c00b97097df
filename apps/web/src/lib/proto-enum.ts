/*
 * Lists of a protobuf enum's values, read from its generated descriptor rather than kept by hand:
 * a value added to the proto is offered by the forms, and a label map keyed by the names
 * (`Record<EnumValueName<typeof LbPolicy>, string>`) fails to compile until it has its label.
 * No zod here, so that pages other than the forms (the inventory, the change lists) can use it.
 */
export { type EnumValueName, enumValueNames } from "@switchyard/proto/enum-names";

/**
 * The name of a protobuf enum `value` (from its generated enum object) when the form offers it,
 * else `fallback`: a stored value the form has no choice for opens as the default choice.
 */
export function enumName<T extends string>(
  values: Record<string | number, string | number>,
  value: number,
  allowed: readonly T[],
  fallback: T,
): T {
  const name = values[value];
  return typeof name === "string" && (allowed as readonly string[]).includes(name)
    ? (name as T)
    : fallback;
}
