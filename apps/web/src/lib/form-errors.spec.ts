import { describe, expect, it } from "vitest";
import { formErrors, notSavedText } from "./form-errors";

describe("formErrors", () => {
  it("lists every message of react-hook-form's error tree in field order, lists' own errors at the list", () => {
    const errors = {
      name: { type: "too_small", message: "Enter a name", ref: { focus: () => {} } },
      filterChains: {
        root: { type: "custom", message: "Only one filter chain can be the default" },
        1: { routeConfigName: { type: "custom", message: "Choose the route configuration" } },
      },
      port: { type: "custom", message: "Enter a number from 0 to 65535" },
      silent: { type: "custom" },
    };
    expect(formErrors(errors)).toEqual([
      { path: "name", message: "Enter a name" },
      { path: "filterChains", message: "Only one filter chain can be the default" },
      { path: "filterChains.1.routeConfigName", message: "Choose the route configuration" },
      { path: "port", message: "Enter a number from 0 to 65535" },
    ]);
  });

  it("finds nothing in no errors", () => {
    expect(formErrors({})).toEqual([]);
    expect(formErrors(undefined)).toEqual([]);
  });
});

describe("notSavedText", () => {
  it("says the first problem and how many more there are, and nothing when there is none", () => {
    const one = { path: "port", message: "Enter a number from 0 to 65535" };
    expect(notSavedText([one])).toBe("Not saved: Enter a number from 0 to 65535");
    expect(notSavedText([one, one])).toBe(
      "Not saved: Enter a number from 0 to 65535 (and 1 more problem)",
    );
    expect(notSavedText([one, one, one])).toContain("(and 2 more problems)");
    expect(notSavedText([])).toBeUndefined();
  });
});
