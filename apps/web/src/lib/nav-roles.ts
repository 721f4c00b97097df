import type { Role } from "@switchyard/proto/switchyard/v1/access_pb";
import type { EnumValueName } from "./proto-enum";

/** The console's roles, as useCaller names them: access.proto's Role, in lower case. */
export type CallerRole = Lowercase<EnumValueName<typeof Role>>;

interface Limited {
  /** Only these roles see the item; every role when unset. */
  readonly roles?: readonly CallerRole[];
}

/**
 * The sections as `role` sees them: items limited to other roles left out, and a section left
 * with no item dropped. While the role is unknown (still asking WhoAmI), no limited item shows,
 * so an admin-only link never flashes for a viewer.
 */
export function sectionsForRole<S extends { readonly items: readonly Limited[] }>(
  sections: readonly S[],
  role: CallerRole | undefined,
): S[] {
  return sections
    .map((section) => ({
      ...section,
      items: section.items.filter(
        (item) => item.roles === undefined || (role !== undefined && item.roles.includes(role)),
      ),
    }))
    .filter((section) => section.items.length > 0);
}
