import type { GenEnum } from "@bufbuild/protobuf/codegenv2";

/** A generated protobuf enum object (`LbPolicy`): its value names to numbers, and back. */
type ProtoEnum = Record<string, string | number>;

/** The value names of a generated protobuf enum but `UNSPECIFIED`: `"ROUND_ROBIN" | …`. */
export type EnumValueName<E extends ProtoEnum> = Exclude<Extract<keyof E, string>, "UNSPECIFIED">;

/**
 * The value names of a protobuf enum, from its descriptor (`LbPolicySchema`), in proto order and
 * without the zero `*_UNSPECIFIED` value, so that lists of choices are never kept by hand: a value
 * added to the proto is offered at once, and a map keyed by the names
 * (`Record<EnumValueName<typeof LbPolicy>, string>`) fails to compile until it has the value.
 * `values`, the generated enum object (`LbPolicy`), gives the names their type.
 */
export function enumValueNames<E extends ProtoEnum>(
  schema: GenEnum<Extract<E[keyof E], number>>,
  values: E,
): readonly EnumValueName<E>[] {
  return schema.values
    .map((v) => v.localName)
    .filter(
      (name): name is EnumValueName<E> => name !== "UNSPECIFIED" && Object.hasOwn(values, name),
    );
}
