import { describe, expect, it } from "vitest";
import { type CallerRole, sectionsForRole } from "./nav-roles";

interface Section {
  readonly label: string;
  readonly items: readonly { readonly label: string; readonly roles?: CallerRole[] }[];
}

const sections: Section[] = [
  { label: "Fleet", items: [{ label: "Overview" }] },
  {
    label: "Access",
    items: [
      { label: "Users", roles: ["admin"] },
      { label: "API tokens", roles: ["admin", "member", "viewer"] },
    ],
  },
  { label: "Admin", items: [{ label: "Audit log", roles: ["admin"] }] },
];

const seen = (role: CallerRole | undefined) =>
  sectionsForRole(sections, role).map(
    (s) => `${s.label}: ${s.items.map((i) => i.label).join(", ")}`,
  );

describe("navigation limited by role", () => {
  it("an admin sees every item", () => {
    expect(seen("admin")).toEqual([
      "Fleet: Overview",
      "Access: Users, API tokens",
      "Admin: Audit log",
    ]);
  });

  it("a viewer sees only the items listed for viewers, and a section left empty disappears", () => {
    expect(seen("viewer")).toEqual(["Fleet: Overview", "Access: API tokens"]);
  });

  it("while the role is unknown, no limited item shows", () => {
    expect(seen(undefined)).toEqual(["Fleet: Overview"]);
  });
});
